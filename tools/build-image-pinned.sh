#!/usr/bin/env bash
# Build and smoke-test the image with the workplace's ../shared/tools/build-image.sh, whose stand-in base image
# is named python:3.11-slim, while our Dockerfile pins the base by Python release and Debian codename
# (ARG PYTHON_IMAGE, e.g. python:3.11.14-slim-bookworm): the stand-in (Debian bookworm's Python 3.11) is also
# tagged with the pinned name before the build, so `FROM ${PYTHON_IMAGE}` finds it without a registry.
#   tools/build-image-pinned.sh          # base, tag, build, smoke test, clean (KEEP=1 keeps the image)
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
TOOL=${BUILD_IMAGE:-$HERE/../shared/tools/build-image.sh}
export WORK=${WORK:-/tmp/img}
pinned=$(sed -n 's/^ARG PYTHON_IMAGE=//p' "$HERE/Dockerfile")
if [ -z "$pinned" ]; then
  echo "build-image-pinned: the Dockerfile has no ARG PYTHON_IMAGE=… line" >&2
  exit 2
fi
cd "$HERE"
bash "$TOOL" base
nice -n 10 buildah --storage-driver vfs --root "$WORK/storage" --runroot "$WORK/runroot" \
  tag docker.io/library/python:3.11-slim "docker.io/library/$pinned"
bash "$TOOL" build
bash "$TOOL" test
if [ "${KEEP:-0}" != 1 ]; then
  bash "$TOOL" clean
fi
