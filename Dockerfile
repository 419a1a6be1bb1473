# crashprobe's GitHub App as a container: `npm start` (web + workers, SQLite), or with
# CRASHPROBE_DATABASE_URL set, `npm run web` / `npm run worker` (see docker-compose.yml).
# Not built or run on the machine the project is developed on (no Docker there); see README "Deployment".
#
# The sandbox. Pull-request code runs under bubblewrap in a user namespace mapped to `nobody`
# (src/adapters/harness/bwrap-plan.ts: --unshare-user/-pid/-net/-ipc/-uts, --proc /proc). As the
# non-root user below, bwrap needs the host kernel to allow unprivileged user namespaces
# (Debian/Ubuntu: kernel.unprivileged_userns_clone=1; Ubuntu 24.04 hosts also restrict them through
# AppArmor: kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), AND the
# container runtime must let the process call unshare(CLONE_NEWUSER) and mount /proc: Docker's default
# seccomp profile refuses that, so run with
#   --security-opt seccomp=unconfined  --security-opt apparmor=unconfined  --security-opt systempaths=unconfined
# (or a seccomp profile that allows unshare/clone with CLONE_NEWUSER; `--cap-add SYS_ADMIN` also lifts
# the seccomp rule but grants far more than needed). Without this, bwrap fails at start and every review
# that would run code says so and concludes `action_required`; the static review still runs.
FROM node:20-bookworm-slim AS build
# Native addons (better-sqlite3, tree-sitter) are compiled from source, as scripts/setup.sh does.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
ENV npm_config_build_from_source=true
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# python3: the crash harness; bubblewrap: the sandbox; util-linux: setpriv (used when run as root); git: local sources.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 bubblewrap util-linux git ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY harness ./harness
COPY templates ./templates
COPY bin ./bin
# A non-root user: the App never needs root, and bubblewrap then takes the single (unprivileged) shape.
RUN useradd --create-home --uid 10001 --user-group crashprobe \
 && mkdir -p /data && chown crashprobe:crashprobe /data
USER crashprobe
ENV NODE_ENV=production \
    CRASHPROBE_STATE=/data/state.db \
    PORT=3000 \
    CRASHPROBE_METRICS_PORT=9464
VOLUME ["/data"]
EXPOSE 3000 9464
# tini forwards SIGTERM to node, so the graceful stop (finish running reviews within the grace) happens.
ENTRYPOINT ["/usr/bin/tini", "--"]
# node --import tsx rather than `npm start`: npm does not pass SIGTERM on reliably.
CMD ["node", "--import", "tsx", "src/adapters/probot/main.ts"]
