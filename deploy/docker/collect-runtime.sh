#!/bin/sh
# The files a deployable needs at run time besides node_modules and proto/: the compiled output of
# the libs that were built and of the target, and the target's config/ folder (data it reads at
# boot, e.g. services/subscriptions/config/catalogue.json). Used by the Dockerfile's build stage and
# by test/platform/runtime-files.test.ts, so the image and the test collect the same files.
#   collect-runtime.sh <SERVICE_PATH> <out dir>
set -eu
service_path="$1"
out="$2"
for dir in libs/* "${service_path}"; do
  if [ -d "${dir}/dist" ]; then mkdir -p "${out}/${dir}" && cp -R "${dir}/dist" "${out}/${dir}/dist"; fi
done
if [ -d "${service_path}/config" ]; then cp -R "${service_path}/config" "${out}/${service_path}/config"; fi
# declaration files are not needed at run time; source maps stay (small, for --enable-source-maps)
find "${out}" -type f \( -name '*.d.ts' -o -name '*.d.ts.map' -o -name '*.tsbuildinfo' \) -delete
test -f "${out}/${service_path}/dist/main.js"
