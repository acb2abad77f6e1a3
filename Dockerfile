# syntax=docker/dockerfile:1
# Production image: compiled JavaScript on Node, production dependencies only, as the
# unprivileged `node` user. Node is the container's main process (no npm or tsx between),
# so the runtime's SIGTERM reaches its graceful shutdown ("shut down cleanly", exit 0).
# Configure it with the variables of docs/configuration.md (.env.example lists them):
# production mode requires AUTH_SECRET, and DATABASE_URL and SOLANA_RPC_URL name real services.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY schema ./schema
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
WORKDIR /app
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The embedded defaults (PGlite, the devchain, uploaded images) write under ./data.
RUN mkdir -p data && chown node:node data
USER node
EXPOSE 4000
CMD ["node", "dist/src/main.js"]
