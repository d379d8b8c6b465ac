#!/usr/bin/env bash
# smoke-image.sh IMAGE: smoke-tests a built dmhost image with whatever runs containers here (docker, podman,
# or buildah with a store given in BUILDAH_ARGS, e.g. "--storage-driver vfs --root /tmp/img/storage
# --runroot /tmp/img/runroot"). Every check runs in a fresh container of the image; prints PASS/FAIL lines
# and exits with the number of failures. RUNTIME=docker|podman|buildah picks one when several are present.
#
# What it checks: the image's config (USER, HEALTHCHECK kept, CMD, /data volume); as the image's user:
# --help, the health check unhealthy then healthy after a match, a piped match on /data, migrations, PNG
# boards, a 3x3 solve without compiling anything; as another uid (12345, as `docker run --user`, OpenShift
# or Kubernetes runAsUser give): a 3x3 solve, a Pathing preset and a rule card (the package `seeds`) from `/`;
# a read-only root as the image's user and as uid 12345: `--read-only --tmpfs /tmp` with docker or podman;
# with buildah, which has no --read-only, every folder outside /data that those users could write (the home
# folder, /var/tmp, /app) is mounted read-only over itself and /tmp is a fresh tmpfs.
set -uo pipefail
IMAGE=${1:?usage: smoke-image.sh IMAGE}
# docker or podman only when they answer (a docker client without a reachable daemon does not count)
RUNTIME=${RUNTIME:-$(for r in docker podman buildah; do
    command -v "$r" >/dev/null && { [ "$r" = buildah ] || "$r" info >/dev/null 2>&1; } && { echo "$r"; break; }
done)}
[ -n "$RUNTIME" ] || { echo "no container runtime (docker, podman or buildah)" >&2; exit 2; }
read -r -a BARGS <<<"${BUILDAH_ARGS:-}"
FAILS=0
VOLUME=dmhost-smoke-$$

run() {  # run [--user U] [--workdir D] [--read-only] -- CMD...: one command in a fresh container
    local user="" workdir="" readonly=0
    while [ "$1" != "--" ]; do
        case $1 in --user) user=$2; shift 2 ;; --workdir) workdir=$2; shift 2 ;; --read-only) readonly=1; shift ;; esac
    done
    shift
    case $RUNTIME in
        docker|podman)
            local opts=(--rm -v "$VOLUME:/data")
            [ -n "$user" ] && opts+=(--user "$user")
            [ -n "$workdir" ] && opts+=(--workdir "$workdir")
            [ "$readonly" = 1 ] && opts+=(--read-only --tmpfs /tmp)
            "$RUNTIME" run "${opts[@]}" "$IMAGE" "$@" ;;
        buildah)
            # one working container for the whole run (so /data persists between checks, as a volume would)
            local opts=(--isolation chroot)
            [ -n "$user" ] && opts+=(--user "$user")
            [ -n "$workdir" ] && opts+=(--workingdir "$workdir")
            if [ "$readonly" = 1 ]; then  # no --read-only in buildah run: see the header
                local d
                for d in /home/dmhost /var/tmp /app; do
                    [ -d "$MNT$d" ] && opts+=(--mount "type=bind,source=$MNT$d,destination=$d,ro=true")
                done
                opts+=(--mount "type=tmpfs,destination=/tmp")
            fi
            buildah "${BARGS[@]}" run "${opts[@]}" "$CTR" -- "$@" ;;
    esac
}

check() {  # check NAME WANTED_RC [run options] -- CMD...
    local name=$1 want=$2 rc=0 out
    shift 2
    out=$(run "$@" 2>&1) || rc=$?
    if [ "$rc" = "$want" ]; then
        printf 'PASS  %-16s rc=%s\n' "$name" "$rc"
    else
        printf 'FAIL  %-16s rc=%s, wanted %s\n' "$name" "$rc" "$want"
        printf '%s\n' "$out" | tail -n 8 | sed 's/^/      | /'
        FAILS=$((FAILS + 1))
    fi
    LAST=$out
}

if [ "$RUNTIME" = buildah ]; then
    CTR=$(buildah "${BARGS[@]}" from --pull=never --name "dmhost-smoke-$$" "$IMAGE") || exit 2
    MNT=$(buildah "${BARGS[@]}" mount "$CTR") || exit 2  # the container's files, for the read-only binds
    trap 'buildah "${BARGS[@]}" umount "$CTR" >/dev/null 2>&1; buildah "${BARGS[@]}" rm "$CTR" >/dev/null 2>&1' EXIT
    config=$(buildah "${BARGS[@]}" inspect --type image "$IMAGE")
    python3 - "$config" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
c = json.loads(sys.argv[1])["Docker"]["config"]
ok = (c.get("User") == "dmhost" and (c.get("Healthcheck") or {}).get("Test") == ["CMD", "dmhost", "health", "--max-age", "60"]
      and c.get("Cmd") == ["dmhost", "run"] and "/data" in (c.get("Volumes") or {}))
print(("PASS" if ok else "FAIL") + "  config           User, HEALTHCHECK, CMD, /data: " + json.dumps(
    {k: c.get(k) for k in ("User", "Healthcheck", "Cmd", "Volumes")}))
sys.exit(0 if ok else 1)
PY
else
    trap '"$RUNTIME" volume rm -f "$VOLUME" >/dev/null 2>&1' EXIT
fi

check help          0 -- dmhost --help
check unhealthy     1 -- dmhost health --max-age 60
check room          0 -- sh -c "printf 'alice: A1-B1\n' | dmhost room boxes --player alice --player bob --opt rows=1 cols=1 --db /data/x.db"
check migrations    0 -- dmhost db current --db /data/x.db
check healthy       0 -- dmhost health --db /data/x.db --max-age 60
check png           0 -- sh -c "d=\$(mktemp -d) && printf 'alice: A1-B1\n' | dmhost room boxes --player alice --player bob --opt rows=1 cols=1 --db /data/p.db --png \$d >/dev/null && ls \$d | grep -q png"
no_compile() {  # no_compile NAME: the last check's output shows nothing was compiled at run time
    case $LAST in *compiling*) printf 'FAIL  %-16s compiled at run time: the prebuilt module was not used\n' "$1"; FAILS=$((FAILS + 1)) ;; esac
}
check solve-3x3     0 -- python -m games solve boxes --rows 3 --cols 3
no_compile solve-3x3
check preset        0 -- sh -c "printf 'a: A1 B1\n' | dmhost room pathing --player a --player b --opt layout=corners --db /tmp/s.db"
check uid-solve     0 --user 12345:0 -- python -m games solve boxes --rows 3 --cols 3
no_compile uid-solve
check uid-preset    0 --user 12345:0 --workdir / -- sh -c "printf 'a: A1 B1\n' | dmhost room pathing --player a --player b --opt layout=corners --db /tmp/w.db"
check uid-seeds     0 --user 12345:0 --workdir / -- python -c "from games.resources import moves_card, rule_card; assert rule_card('boxes') and moves_card('boxes')"
check uid-cold-jit  0 --user 12345:0 --workdir / -- sh -c "DMHOST_SOLVER_AOT=0 python -m games solve boxes --rows 2 --cols 2"
# read-only root: the probe proves nothing outside /data and /tmp can be written, then a solve (nothing
# compiled), a match on /data and the health check
READONLY="for d in /home/dmhost /var/tmp /app /usr/local; do touch \$d/.probe 2>/dev/null && { echo \"\$d writable\"; exit 9; }; done;"
READONLY="$READONLY python -m games solve boxes --rows 3 --cols 3 && printf 'alice: A1-B1\n' | dmhost room boxes"
READONLY="$READONLY --player alice --player bob --opt rows=1 cols=1 --db /data/ro.db && dmhost health --db /data/ro.db"
check read-only     0 --read-only -- sh -c "$READONLY"
no_compile read-only
check ro-uid-solve  0 --read-only --user 12345:0 -- python -m games solve boxes --rows 3 --cols 3
no_compile ro-uid-solve
echo "smoke tests on $RUNTIME: $FAILS failed"
exit "$FAILS"
