# hftgate container image: the gateway (dist/src), the simulator it embeds by default (dist/sim) and the
# production dependencies, run as the unprivileged `node` user under tini (PID 1: signals reach node,
# children are reaped). var/ (journal, state file, drop-copy spool) is a volume: the restart promise
# needs the journal to outlive the container. Docker cannot run on the project's build machines:
# test/package/deploy.test.ts checks this file and deploy/compose.yaml statically.

# Build stage: full install (TypeScript is a dev dependency), compile the gateway and the simulator only,
# and the mapped journal's native part (a C compiler against the image's own Node headers).
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY sim ./sim
COPY native ./native
RUN npx tsc -p tsconfig.json && node native/build.mjs && find dist -name '*.map' -delete

# Runtime stage: tini, production dependencies, the compiled gateway and simulator, nothing else.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/sim ./dist/sim
COPY --from=build /app/dist/native ./dist/native
COPY config ./config
RUN mkdir -p /app/var && chown node:node /app/var
USER node
VOLUME ["/app/var"]
# The command API binds to loopback by default; to reach it from outside the container set
# HFTGATE_GATEWAY_HOST=0.0.0.0 and HFTGATE_TOKEN (a token is then mandatory), as deploy/compose.yaml does.
EXPOSE 7700
# /health answers 200 while orders are taken, 503 while starting, halted or stopping.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HFTGATE_GATEWAY_PORT||7700)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/cli.js", "start"]
