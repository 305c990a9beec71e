import { execFileSync } from 'node:child_process';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';

const APPLE_INTERMEDIATE_OID = '1.2.840.113635.100.6.2.1';
const APPLE_LEAF_OID = '1.2.840.113635.100.6.11.1';

const derOf = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

/**
 * A root → intermediate → leaf chain made with openssl, carrying Apple's certificate OIDs, like the
 * App Store's signing chain (research §1.1). `sign` produces JWS the way the App Store does.
 */
export function makeApplePki() {
  const dir = mkdtempSync(path.join(tmpdir(), 'apple-pki-'));
  const f = (name: string) => path.join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = (name: string) => run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', f(name));
  const ca = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n';

  const issue = (name: string, subject: string, issuer: string, ext: string) => {
    key(`${name}.key`);
    run('req', '-new', '-key', f(`${name}.key`), '-subj', `/CN=${subject}`, '-out', f(`${name}.csr`));
    writeFileSync(f(`${name}.ext`), ext);
    run(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f(`${issuer}.pem`),
      '-CAkey',
      f(`${issuer}.key`),
      '-CAcreateserial',
      '-days',
      '3650',
      '-out',
      f(`${name}.pem`),
      '-extfile',
      f(`${name}.ext`),
    );
  };
  const root = (name: string) => {
    key(`${name}.key`);
    writeFileSync(f(`${name}.ext`), ca);
    run(
      'req',
      '-x509',
      '-new',
      '-key',
      f(`${name}.key`),
      '-subj',
      `/CN=${name}`,
      '-days',
      '3650',
      '-out',
      f(`${name}.pem`),
      '-extensions',
      'v3_ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
  };

  root('root');
  issue('int', 'Test Apple Intermediate', 'root', `${ca}${APPLE_INTERMEDIATE_OID}=ASN1:NULL\n`);
  issue(
    'leaf',
    'Test Apple Leaf',
    'int',
    `basicConstraints=critical,CA:FALSE\n${APPLE_LEAF_OID}=ASN1:NULL\n`,
  );
  // an unrelated chain the service does not trust
  root('evil');
  issue('evilint', 'Evil Intermediate', 'evil', `${ca}${APPLE_INTERMEDIATE_OID}=ASN1:NULL\n`);
  issue(
    'evilleaf',
    'Evil Leaf',
    'evilint',
    `basicConstraints=critical,CA:FALSE\n${APPLE_LEAF_OID}=ASN1:NULL\n`,
  );

  const pem = (name: string) => readFileSync(f(`${name}.pem`), 'utf8');
  const privateKey = (name: string): KeyObject => createPrivateKey(readFileSync(f(`${name}.key`)));
  const chains = {
    trusted: { key: privateKey('leaf'), x5c: [derOf(pem('leaf')), derOf(pem('int')), derOf(pem('root'))] },
    untrusted: {
      key: privateKey('evilleaf'),
      x5c: [derOf(pem('evilleaf')), derOf(pem('evilint')), derOf(pem('evil'))],
    },
  };

  return {
    rootPemFile: f('root.pem'),
    sign: (payload: Record<string, unknown>, chain: 'trusted' | 'untrusted' = 'trusted') =>
      new SignJWT(payload)
        .setProtectedHeader({ alg: 'ES256', x5c: chains[chain].x5c })
        .sign(chains[chain].key),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
export type ApplePki = ReturnType<typeof makeApplePki>;
