#!/usr/bin/env bash
# Installs what crashprobe and its tests need on a fresh machine: python3 (3.9+) for
# the crash harness, git for reviews of local changes, bubblewrap for the sandbox
# (optional: without it the harness keeps its resource limits and says so), PostgreSQL's
# server binaries and the Debian packages of real libraries for the tests, and the npm packages.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]}" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: please install ${missing[*]} (bubblewrap is optional)" >&2
  fi
fi
python3 -c 'import sys; assert sys.version_info >= (3, 9), "crashprobe needs Python 3.9 or newer"'

# PostgreSQL server binaries (initdb, pg_ctl) for the PostgreSQL backend's tests and the load test
# (issue 14): each test starts a throwaway server in a temporary folder; no service is left running.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing postgresql (server binaries for the tests)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  else
    echo "setup: please install PostgreSQL's server binaries (Debian: apt-get install --no-install-recommends postgresql); the PostgreSQL tests fail without them" >&2
  fi
fi

# Real-world corpora for the corpus tests (test/corpus): public libraries taken from Debian's
# packages, pinned by their Debian versions, so that no copy of their code is committed here.
CORPUS_PACKAGES=(python3-diskcache python3-sqlitedict python3-persist-queue python3-tinydb python3-cachelib buku python3-requests-cache python3-pickleshare python3-whoosh python3-joblib python3-hypothesis python3-kombu python3-pony python3-nbformat python3-keyrings.alt python3-configobj python3-sqlobject python3-coverage python3-beaker python3-rq python3-yoyo python3-doit python3-zict python3-tldextract python3-vcr python3-queuelib python3-partd python3-pooch python3-radicale python3-minidb python3-pykeepass python3-pysyncobj python3-parfive vdirsyncer khal todoman offlineimap3 python3-dogpile.cache python3-cachecontrol python3-apscheduler python3-alembic python3-dulwich trash-cli python3-mutagen python3-ipython python3-peewee python3-cherrypy3 python3-git python3-babel python3-jupyter-client python3-pip yt-dlp rss2email python3-scrapy python3-jupyter-server python3-debian exfalso gpodder deluge-common bleachbit gajim ranger hamster-time-tracker zim lollypop)
missing_corpus=()
for pkg in "${CORPUS_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing_corpus+=("$pkg")
done
if [ ${#missing_corpus[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing_corpus[*]} (real-world code for the corpus tests)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing_corpus[@]}" >/dev/null
  else
    echo "setup: please install ${missing_corpus[*]} (Debian packages; the corpus tests fail without them)" >&2
  fi
fi

# Native addons (tree-sitter, better-sqlite3) compile here: their prebuilt binaries are either
# unreachable (a download from outside the npm registry) or too new for Debian 12's libstdc++.
export npm_config_build_from_source=true
# node-gyp compiles on every core (the machine has two): half the wall time of one.
export JOBS="${JOBS:-max}"
if [ -d node_modules ] && [ "${CRASHPROBE_SETUP_REINSTALL:-0}" != 1 ]; then
  npm install --no-audit --no-fund --loglevel=error
else
  npm ci --no-audit --no-fund --loglevel=error
fi
