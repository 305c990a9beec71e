import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startRestartableProcess } from './restartable-process';

/** Debian's nginx (infra.sh up --test-tools installs it). */
export const nginxBinary = () => ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p)) ?? 'nginx';

/**
 * A real nginx as the ingress in front of `upstream` (a gateway), on a free loopback port, as a
 * Kubernetes ingress controller is configured: it appends the peer's address to X-Forwarded-For
 * and connects to the upstream from 127.0.0.1.
 */
export async function startNginxIngress(upstream: string) {
  const up = new URL(upstream);
  const proc = await startRestartableProcess(nginxBinary(), (port, dir) => {
    writeFileSync(
      path.join(dir, 'nginx.conf'),
      `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream gateway { server ${up.host}; keepalive 16; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateway;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`,
    );
    return ['-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log'), '-p', dir];
  });
  return { ...proc, url: `http://127.0.0.1:${proc.port}` };
}
