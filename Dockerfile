# hftgate container image. Docker cannot run on the project's build machines, so this file is kept
# deliberately plain; it follows the same steps as .ci/run.
# Build stage: full install (TypeScript is a dev dependency), compile to dist/.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY sim ./sim
COPY bench ./bench
COPY test ./test
RUN npm run build

# Runtime stage: production dependencies only, non-root user.
FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config ./config
RUN mkdir -p /app/var && chown -R node:node /app/var
USER node
# The command API binds to loopback by default; to reach it from outside the container set
# HFTGATE_GATEWAY_HOST=0.0.0.0 and HFTGATE_TOKEN (a token is then mandatory).
EXPOSE 7700
# `--ignore-scripts` skips the prestart build: dist/ is already compiled in this image.
CMD ["npm", "start", "--ignore-scripts"]
