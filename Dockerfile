# The server's image: a build stage compiles src/ into dist/ from a fresh clone, and the
# runtime stage holds dist/ alone with Node.js. test/dockerfile.test.ts parses this file and
# reproduces its stages outside a container engine; scripts/test-image.ts (npm run test:image)
# builds it and runs the image; docs/containers.md quotes it whole.

# Node.js 26, the Active LTS line ('Lithium', supported until 2029-04-30; its first LTS
# release carries the October 2026 security fixes), on Debian 13 (trixie) slim. The tag
# pins the Node.js release; the official image rebuilds it for Debian security fixes, which
# a digest pin would hold back.
ARG NODE_IMAGE=node:26.13.0-trixie-slim
# What the runtime stage starts from. By default `scratch`, an empty image, which gets node,
# the shared libraries it loads and the node user from NODE_IMAGE, and nothing else: no
# shell, no npm, no package manager. Or any image with node on its PATH and a `node` user,
# such as NODE_IMAGE itself (--build-arg RUNTIME_BASE=node:26.13.0-trixie-slim), twice the
# size, for a shell and apt beside the server. docs/containers.md has the sizes of both.
ARG RUNTIME_BASE=scratch

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The lock file first, so the install layer is reused until the dependencies change.
COPY package.json package-lock.json ./
# --ignore-scripts: no package runs an install script, and `prepare` does not build before
# src/ is here; the build runs once, below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts scripts/
COPY src/ src/
RUN npm run build

# What the runtime stage adds to its base: /data, the mount point for DATA_DIR, owned by the
# user the server runs as, so that a named volume mounted there is writable.
FROM ${NODE_IMAGE} AS runtime-files
RUN mkdir -p /files/data && chown node:node /files/data
# On scratch, also node, each library ldd names for it at its own path, and the root and node
# lines of /etc/passwd and /etc/group; node must start in that tree alone.
ARG RUNTIME_BASE
RUN if [ "$RUNTIME_BASE" = scratch ]; then \
      mkdir -p /files/usr/local/bin /files/etc \
      && cp /usr/local/bin/node /files/usr/local/bin/ \
      && for lib in $(ldd /usr/local/bin/node | grep -o '/[^ ]*'); do cp --parents -L "$lib" /files/ || exit 1; done \
      && grep -E '^(root|node):' /etc/passwd > /files/etc/passwd \
      && grep -E '^(root|node):' /etc/group > /files/etc/group \
      && chroot /files /usr/local/bin/node --version; \
    fi

FROM ${RUNTIME_BASE}
# COPY --from keeps the owners the files had in runtime-files.
COPY --from=runtime-files /files/ /
WORKDIR /app
# dist/ runs with plain node: no node_modules, no package.json beside it, no dev dependencies.
COPY --from=build /app/dist/ dist/
# No NODE_ENV: neither the server nor node reads it. The server listens on every interface
# of the container; what reaches it is what `-p` publishes. It answers Host names that are
# IP addresses or localhost, and pages from loopback origins: behind a domain, set
# ALLOWED_HOSTS and CORS_ORIGINS, and set AUTH_TOKENS_FILE before publishing the port beyond
# this machine, or anyone who reaches it can write (docs/access.md).
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
# JSON access lines on stdout, one object a line, for the engine's log collector.
ENV LOG_FORMAT=json
# The official image's unprivileged user, uid 1000 (on scratch, its line copied above).
USER node
# Neither base has curl: node asks /healthz itself, on the port the server listens on.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, and no shell or entrypoint script in between: node is PID 1 and gets SIGTERM
# itself. Flags after the image name go to the server (docker run IMAGE --seed /seed.json).
ENTRYPOINT ["node", "dist/main.js"]
