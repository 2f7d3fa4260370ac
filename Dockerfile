# A Hermes worker image: runs `hermes worker` against the Temporal cluster in TEMPORAL_ADDRESS.
# Build: docker build -t hermes-temporal .   (docker-compose.yml builds it for the hermes-worker service)
FROM node:20-slim

WORKDIR /app
ENV NODE_ENV=production

# bubblewrap: the terminal tool's sandbox (HERMES_SANDBOX=auto uses it where it can start). Inside a container
# it needs user namespaces, which Docker's default seccomp profile refuses: without them the worker warns
# "terminal runs without a sandbox: …" at start-up (`hermes doctor` says why) and runs commands unsandboxed;
# HERMES_SANDBOX=bwrap makes it refuse to start instead. See README, "Sandboxed terminal".
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*

# Dependencies first, so source edits do not invalidate this layer. tsx is a runtime dependency: the sources
# run without a build step; the workflow code is bundled when the worker starts.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src

# The directory the file and terminal tools work in (conversations that name no workspace).
RUN mkdir -p /workspace && chown node:node /workspace
# Kept bundles of earlier builds (docs/versioning.md); a volume mounted here starts out owned by node.
RUN mkdir -p /home/node/.hermes/builds && chown -R node:node /home/node/.hermes
ENV HERMES_WORKSPACE=/workspace \
    HERMES_HOME=/home/node/.hermes \
    TEMPORAL_ADDRESS=temporal:7233 \
    TEMPORAL_NAMESPACE=default

# The terminal tool runs model-chosen commands: not as root.
USER node
ENTRYPOINT ["node", "bin/hermes.js"]
CMD ["worker"]
