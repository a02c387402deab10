# selenium-flow: the server only (no browser, no Java, no Selenium jar). Point it at a Selenium Grid
# with GRID_URL; see docker-compose.yaml, deploy/kubernetes/ and docs/scaling.md.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json npm-shrinkwrap.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundle.mjs ./scripts/
COPY src ./src
COPY ui ./ui
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    SE_OFFLINE=true \
    SE_AVOID_STATS=true \
    HOST=0.0.0.0 \
    PORT=8080 \
    FLOW_DATA_DIR=/data
WORKDIR /app
COPY package.json npm-shrinkwrap.json ./
# --omit=optional: the Selenium jar (50 MB) is for the embedded Grid, and this image's Grid is its own container.
RUN npm ci --omit=dev --omit=optional --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY skills ./skills
COPY README.md CHANGELOG.md LICENSE ./
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
VOLUME ["/data"]
# Liveness only: /ready also asks the Grid and the store, and a container should not be restarted for them.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# HOST=0.0.0.0 needs MCP_AUTH_TOKEN; GRID_URL must name a Grid (the image has no embedded one).
CMD ["node", "dist/cli.js", "serve"]
