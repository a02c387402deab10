# selenium-flow: the server only (no browser, no Java). Point it at a Selenium Grid with GRID_URL;
# see docker-compose.yaml and docs/scaling.md.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY ui ./ui
RUN npm run build

FROM node:20-slim
ENV NODE_ENV=production \
    SE_OFFLINE=true \
    SE_AVOID_STATS=true \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY skills ./skills
COPY README.md CHANGELOG.md ./
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
# HOST=0.0.0.0 needs MCP_AUTH_TOKEN; GRID_URL must name a Grid (the image has no embedded one).
CMD ["node", "dist/cli.js", "serve"]
