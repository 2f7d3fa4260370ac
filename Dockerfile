# A Hermes worker image: runs `hermes worker` against the Temporal cluster in TEMPORAL_ADDRESS.
# Build: docker build -t hermes-temporal .   (docker-compose.yml builds it for the hermes-worker service)
FROM node:20-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so source edits do not invalidate this layer. tsx is a runtime dependency: the sources
# run without a build step; the workflow code is bundled when the worker starts.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src

# The directory the file and terminal tools work in (conversations that name no workspace).
RUN mkdir -p /workspace && chown node:node /workspace
ENV HERMES_WORKSPACE=/workspace \
    HERMES_HOME=/home/node/.hermes \
    TEMPORAL_ADDRESS=temporal:7233 \
    TEMPORAL_NAMESPACE=default

# The terminal tool runs model-chosen commands: not as root.
USER node
ENTRYPOINT ["node", "bin/hermes.js"]
CMD ["worker"]
