# A Hermes worker image: runs `hermes worker` against the Temporal cluster in TEMPORAL_ADDRESS (and, with another
# command, `hermes codec-server`). Build: docker build -t hermes-temporal .   (docker-compose.yml builds it)
FROM node:22-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# What the tools and the README's examples use on a worker:
# - bubblewrap: the terminal tool's sandbox (HERMES_SANDBOX=auto uses it where it can start). Inside a container it
#   needs user namespaces, which Docker's default seccomp profile refuses: without them the worker warns "terminal
#   runs without a sandbox: …" at start-up (`hermes doctor` says why) and runs commands unsandboxed;
#   HERMES_SANDBOX=bwrap makes it refuse to start instead. See README, "Sandboxed terminal".
# - git, python3, ripgrep, curl: what a coding or ops task asks the terminal for; curl is also the health check.
# - tini: PID 1 that reaps the terminal commands' exited children and passes SIGTERM on to the worker.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap ca-certificates curl git python3 ripgrep tini \
    && rm -rf /var/lib/apt/lists/*

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
# The payload store's mount point (docker-compose.yml): a named volume copies this owner on first use.
RUN mkdir -p /var/lib/hermes/payloads && chown -R node:node /var/lib/hermes
ENV HERMES_WORKSPACE=/workspace \
    HERMES_HOME=/home/node/.hermes \
    TEMPORAL_ADDRESS=temporal:7233 \
    TEMPORAL_NAMESPACE=default

# --health-port: GET /healthz (liveness) and /readyz (readiness); --metrics-port: Prometheus /metrics.
EXPOSE 8081 9464

# The terminal tool runs model-chosen commands: not as root.
USER node
# SIGTERM (docker stop, Kubernetes) stops the worker gracefully: no new work, running tools get --grace seconds.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/hermes.js"]
CMD ["worker", "--health-port", "8081"]
