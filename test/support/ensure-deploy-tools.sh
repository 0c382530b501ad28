#!/usr/bin/env bash
# The deployment test (test/deployment.test.ts, docs/deployment.md) runs Debian's nginx, PgBouncer
# and a PostgreSQL server of its own. Installs them when missing and we are root (as the Chromium of
# the /docs test is installed); otherwise says how. Services are not started by the install (a
# policy-rc.d refuses it): the test starts its own, on its own ports.
set -euo pipefail
server() { compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; }
have() { command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; }
if have && { command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; } && command -v psql >/dev/null 2>&1 \
  && server && command -v openssl >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's nginx, pgbouncer and PostgreSQL for the deployment test…" >&2
  made_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && made_policy=1
  fi
  trap '[ -n "$made_policy" ] && rm -f /usr/sbin/policy-rc.d' EXIT
  apt-get update -qq >/dev/null
  export DEBIAN_FRONTEND=noninteractive
  # docs/deployment.md, "The machine":
  apt-get install -y nginx pgbouncer postgresql-client >/dev/null
  # The test's own PostgreSQL server (Debian's default version), and the tools its commands use.
  apt-get install -y -qq postgresql openssl curl >/dev/null
else
  echo "The deployment test needs nginx, pgbouncer, a PostgreSQL server, openssl and curl:" \
    "install them (e.g. apt-get install nginx pgbouncer postgresql openssl curl)." >&2
  exit 1
fi
