// The OpenAPI 3.1 description of `hermes serve` (served at GET /openapi.json; docs/openapi.json is this
// document, checked by test/serve-unit.test.ts).
const error = { $ref: '#/components/responses/Error' };
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const sessionParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The session id (letters, digits and . _ : -, 1 to 128, starting with a letter or digit).',
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' },
};

export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'hermes serve',
      version: '1',
      description:
        'An OpenAI-compatible API in front of durable Hermes conversations on Temporal (docs/guides/serve.md). A request with a session id ' +
        "(header X-Hermes-Session-Id, else metadata.session_id) is the next turn of that session's chat conversation; without one " +
        'it is a task conversation of its own (with client tools or a response_format, a one-off session whose tool call ids name it). Errors have the OpenAI shape {error: {message, type, param, code}}. Every request ' +
        'with an Origin header that was not configured (--allow-origin), and without a token every request whose Host is not ' +
        'this machine, is a 403 (permission_error); POST bodies are read only as application/json (else 415).',
    },
    servers: [{ url: 'http://127.0.0.1:8642' }],
    security: [{ bearer: [] }],
    paths: {
      '/v1/chat/completions': {
        post: {
          summary: 'Create a chat completion (a turn of a session, or a task)',
          parameters: [
            {
              name: 'X-Hermes-Session-Id',
              in: 'header',
              required: false,
              schema: { type: 'string' },
              description: 'The session (wins over metadata.session_id).',
            },
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' },
              description:
                'A retried request with the same key gets the same turn instead of a new one; the same key with a different request is a 422 (idempotency_key_reused).',
            },
          ],
          requestBody: { required: true, ...json({ $ref: '#/components/schemas/ChatCompletionRequest' }) },
          responses: {
            200: {
              description: 'A chat.completion, or with stream: true server-sent chat.completion.chunk events ending with data: [DONE].',
              headers: {
                'X-Hermes-Conversation-Id': { schema: { type: 'string' }, description: 'The workflow id of the conversation.' },
                'X-Hermes-Session-Id': { schema: { type: 'string' } },
              },
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/ChatCompletion' } },
                'text/event-stream': { schema: { type: 'string', description: 'data: <ChatCompletionChunk JSON> lines, then data: [DONE]' } },
              },
            },
            400: error,
            401: error,
            403: error,
            409: error,
            413: error,
            415: error,
            422: error,
            429: error,
            500: error,
            503: error,
          },
        },
      },
      '/v1/models': {
        get: {
          summary: 'The model profiles',
          responses: { 200: { description: 'A list of models (one per profile)', ...json({ $ref: '#/components/schemas/ModelList' }) }, 401: error },
        },
      },
      '/v1/models/{model}': {
        get: {
          summary: 'One model profile',
          parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The model', ...json({ $ref: '#/components/schemas/Model' }) }, 401: error, 404: error },
        },
      },
      '/v1/sessions/{id}': {
        get: {
          summary: "A session's state and last answer",
          parameters: [
            sessionParam,
            {
              name: 'wait',
              in: 'query',
              required: false,
              schema: { type: 'number', minimum: 0, maximum: 600 },
              description: 'Wait up to this many seconds for the turn under way to end (or to wait for an answer or approval).',
            },
          ],
          responses: {
            200: { description: 'The session', ...json({ $ref: '#/components/schemas/Session' }) },
            400: error,
            401: error,
            404: error,
            429: error,
          },
        },
      },
      '/v1/sessions/{id}/events': {
        get: {
          summary: "The conversation's events as server-sent events (for reconnecting)",
          parameters: [
            sessionParam,
            {
              name: 'from',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 0 },
              description: 'Offset of the first step event (default: the oldest kept). Last-Event-ID resumes after that offset.',
            },
          ],
          responses: {
            200: {
              description: 'data: <ConversationEvent JSON> per event (step events with id: <offset>); data: [DONE] when the conversation closes',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            400: error,
            401: error,
            404: error,
            429: error,
          },
        },
      },
      '/v1/sessions/{id}/interrupt': {
        post: {
          summary: 'Stop the step in flight; with message, go on with it as the next user message',
          parameters: [sessionParam],
          requestBody: { required: false, ...json({ type: 'object', properties: { reason: { type: 'string' }, message: { type: 'string' } } }) },
          responses: {
            200: { description: 'Sent', ...json({ $ref: '#/components/schemas/Ok' }) },
            400: error,
            401: error,
            403: error,
            404: error,
            409: error,
            415: error,
          },
        },
      },
      '/v1/sessions/{id}/answer': {
        post: {
          summary: 'Answer the pending clarify question',
          parameters: [sessionParam],
          requestBody: { required: true, ...json({ type: 'object', required: ['text'], properties: { text: { type: 'string' } } }) },
          responses: {
            200: { description: 'Answered', ...json({ $ref: '#/components/schemas/Ok' }) },
            400: error,
            401: error,
            403: error,
            404: error,
            409: error,
            415: error,
            503: error,
          },
        },
      },
      '/v1/sessions/{id}/approve': {
        post: {
          summary: 'Approve or deny a pending tool call',
          parameters: [sessionParam],
          requestBody: {
            required: true,
            ...json({
              type: 'object',
              required: ['call_id'],
              properties: {
                call_id: { type: 'string' },
                decision: { type: 'string', enum: ['approve', 'deny'], default: 'approve' },
                remember: { type: 'boolean', description: 'Approve the same command pattern for the rest of the conversation.' },
                workflow_id: { type: 'string', description: "The sub-agent's conversation, when two pending calls share an id." },
              },
            }),
          },
          responses: {
            200: { description: 'Decided', ...json({ $ref: '#/components/schemas/Ok' }) },
            400: error,
            401: error,
            403: error,
            404: error,
            409: error,
            415: error,
            503: error,
          },
        },
      },
      '/openapi.json': { get: { summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1', ...json({ type: 'object' }) } } } },
      '/health': {
        get: { summary: 'Liveness', responses: { 200: { description: 'ok', ...json({ type: 'object', properties: { ok: { type: 'boolean' } } }) } } },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Required when the server was started with a token (always off loopback). With a tokens file (--tokens) each token is a ' +
            "principal's, who sees only its own sessions: another principal's session is a 404, as one that does not exist.",
        },
      },
      responses: {
        Error: {
          description: 'An error in the OpenAI shape',
          headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'On a 429: seconds to wait before trying again.' } },
          ...json({ $ref: '#/components/schemas/Error' }),
        },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['message', 'type', 'param', 'code'],
              properties: {
                message: { type: 'string' },
                type: { type: 'string' },
                param: { type: ['string', 'null'] },
                code: { type: ['string', 'null'] },
              },
            },
          },
        },
        Message: {
          type: 'object',
          required: ['role'],
          properties: {
            role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
            tool_call_id: { type: 'string', description: 'A tool message: the client tool call it answers.' },
            content: {
              oneOf: [
                { type: 'string' },
                { type: 'null' },
                {
                  type: 'array',
                  items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string' } } },
                },
              ],
            },
          },
        },
        ChatCompletionRequest: {
          type: 'object',
          required: ['messages'],
          properties: {
            model: { type: 'string', description: 'A model profile (GET /v1/models); "hermes", "default" or empty: the default profile.' },
            messages: {
              type: 'array',
              minItems: 1,
              items: { $ref: '#/components/schemas/Message' },
              description:
                "The last one must be the user's, or tool messages: the results of the client tool calls the conversation waits on (docs/guides/serve.md, Client-side tools).",
            },
            tools: {
              type: 'array',
              maxItems: 128,
              description: "Client-side tools, offered to the model beside the agent's own; a call of one is answered with tool_calls.",
              items: {
                type: 'object',
                required: ['type', 'function'],
                properties: {
                  type: { const: 'function' },
                  function: {
                    type: 'object',
                    required: ['name'],
                    properties: {
                      name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
                      description: { type: 'string' },
                      parameters: { type: 'object' },
                    },
                  },
                },
              },
            },
            tool_choice: {
              oneOf: [
                { type: 'string', enum: ['none', 'auto', 'required'] },
                {
                  type: 'object',
                  required: ['type', 'function'],
                  properties: { type: { const: 'function' }, function: { type: 'object', properties: { name: { type: 'string' } } } },
                },
              ],
            },
            response_format: {
              type: 'object',
              required: ['type'],
              description:
                "The answer's format: asked of endpoints that take it, checked, and asked for once more; a turn whose answer still lacks it fails (500, code AnswerFormat).",
              properties: {
                type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] },
                json_schema: {
                  type: 'object',
                  required: ['name', 'schema'],
                  properties: { name: { type: 'string' }, schema: { type: 'object' }, strict: { type: 'boolean' } },
                },
              },
            },
            stream: { type: 'boolean' },
            stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
            n: { const: 1 },
            metadata: { type: 'object', properties: { session_id: { type: 'string' } }, additionalProperties: { type: 'string' } },
          },
          additionalProperties: true,
        },
        Usage: {
          type: 'object',
          properties: {
            prompt_tokens: { type: 'integer' },
            completion_tokens: { type: 'integer' },
            total_tokens: { type: 'integer' },
            completion_tokens_details: { type: 'object', properties: { reasoning_tokens: { type: 'integer' } } },
          },
        },
        ChatCompletion: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            object: { const: 'chat.completion' },
            created: { type: 'integer' },
            model: { type: 'string' },
            choices: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  index: { type: 'integer' },
                  message: {
                    type: 'object',
                    properties: {
                      role: { const: 'assistant' },
                      content: { type: ['string', 'null'] },
                      tool_calls: {
                        type: 'array',
                        items: { $ref: '#/components/schemas/ToolCall' },
                        description: 'Client tool calls the conversation waits on.',
                      },
                    },
                  },
                  finish_reason: { type: 'string', enum: ['stop', 'length', 'tool_calls'] },
                },
              },
            },
            usage: {
              oneOf: [{ $ref: '#/components/schemas/Usage' }, { type: 'null', description: 'The turn waits (status waiting): not over yet.' }],
            },
            hermes: {
              type: 'object',
              properties: {
                conversation_id: { type: 'string' },
                session_id: { type: ['string', 'null'] },
                status: {
                  type: 'string',
                  description:
                    "The turn's status; `waiting` when it waits for a person (the request is answered at once); `tool_calls` when it waits for the client's tool results.",
                },
                turn: { type: 'integer' },
                reason: { type: 'string' },
                waiting_for: { type: 'string', enum: ['clarify', 'approval'] },
                call_id: { type: 'string', description: 'The pending question or tool call.' },
                question: { type: 'string' },
                answer_with: { type: 'string', description: 'How to answer it, e.g. POST /v1/sessions/ID/approve {"call_id": …, "decision": …}.' },
              },
            },
          },
        },
        ChatCompletionChunk: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            object: { const: 'chat.completion.chunk' },
            created: { type: 'integer' },
            model: { type: 'string' },
            choices: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  index: { type: 'integer' },
                  delta: {
                    type: 'object',
                    properties: {
                      role: { const: 'assistant' },
                      content: { type: 'string', description: 'Joined: the answer.' },
                      reasoning_content: { type: 'string', description: 'Thinking, tool steps, waits, restarts.' },
                      tool_calls: {
                        type: 'array',
                        description:
                          'Client tool calls, as the OpenAI API streams them (index, id, type, function.name, function.arguments in pieces).',
                      },
                    },
                  },
                  finish_reason: { type: ['string', 'null'] },
                },
              },
            },
            usage: { oneOf: [{ $ref: '#/components/schemas/Usage' }, { type: 'null' }] },
          },
        },
        ToolCall: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'Without a session id: hermes.<one-off session>.<call id>, which the results name.' },
            type: { const: 'function' },
            function: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'string' } } },
          },
        },
        Model: {
          type: 'object',
          properties: { id: { type: 'string' }, object: { const: 'model' }, created: { type: 'integer' }, owned_by: { type: 'string' } },
        },
        ModelList: {
          type: 'object',
          properties: { object: { const: 'list' }, data: { type: 'array', items: { $ref: '#/components/schemas/Model' } } },
        },
        Session: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            object: { const: 'hermes.session' },
            conversation_id: { type: 'string' },
            temporal_status: { type: 'string' },
            state: { type: ['object', 'null'], description: "The conversation's state query (status, budgets, pendingQuestion, pendingApprovals…)" },
            turn_in_progress: {
              type: 'boolean',
              description: 'A turn is under way (running, waiting for a person, or sent and not yet answered): last_turn is the one before it.',
            },
            last_turn: {
              type: ['object', 'null'],
              properties: { turn: { type: 'integer' }, status: { type: 'string' }, answer: { type: 'string' }, usage: { type: 'object' } },
            },
          },
        },
        Ok: { type: 'object', properties: { ok: { const: true } }, additionalProperties: true },
      },
    },
  };
}
