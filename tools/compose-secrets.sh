#!/usr/bin/env bash
# compose-secrets.sh [DIR]: make the secret files compose.yaml mounts (default ./secrets beside compose.yaml),
# once. The Discord token is read from $DMHOST_TOKEN or asked for; the PostgreSQL password and the review
# pages' secret are random. Existing files are kept (a new web secret would break every page link given out).
set -euo pipefail
dir=${1:-"$(dirname "$0")/../secrets"}
mkdir -p "$dir"
# The folder is the owner's alone; the files are readable by the containers' user (uid 10001), which sees only
# the file each service mounts (compose bind-mounts a file secret as it is, owner and mode included).
chmod 700 "$dir"
umask 022
rand() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
if [ ! -s "$dir/postgres_password" ]; then
    rand >"$dir/postgres_password"
    rm -f "$dir/database_url"
fi
if [ ! -s "$dir/database_url" ]; then
    printf 'postgresql+asyncpg://dmhost:%s@db/dmhost' "$(cat "$dir/postgres_password")" >"$dir/database_url"
fi
[ -s "$dir/web_secret" ] || rand >"$dir/web_secret"
if [ ! -s "$dir/discord_token" ]; then
    token=${DMHOST_TOKEN:-}
    if [ -z "$token" ] && [ -t 0 ]; then
        read -r -s -p "Discord bot token (from the developer portal): " token
        echo
    fi
    printf '%s' "$token" >"$dir/discord_token"
fi
echo "secrets in $dir: $(ls "$dir" | tr '\n' ' ')"
