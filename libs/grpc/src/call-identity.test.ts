import { generateKeyPairSync, sign } from 'node:crypto';
import { credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { loadPackage } from '@lingua/proto';
import { silentLogger } from '@lingua/testing';
import {
  CALL_ASSERTION_KEY,
  createCallSigner,
  createCallVerifier,
  devCallSigner,
  devTrustedCallers,
  generateCallKeys,
  publicKeyFrom,
  signingKeyFrom,
} from './call-identity';
import { createGrpcClient } from './create-grpc-client';
import { createGrpcServer, type GrpcServer } from './create-grpc-server';
import { runSignCall } from './sign-call';

const { IdentityService } = loadPackage().lingua.identity.v1;

/** An assertion with these claims, signed by `key` (a forger's or a real one). */
function forge(claims: object, key = generateKeyPairSync('ed25519').privateKey): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `v1.${payload}.${sign(null, Buffer.from(`v1.${payload}`), key).toString('base64url')}`;
}
const inAMinute = () => Math.floor(Date.now() / 1000) + 60;

describe('call assertions', () => {
  it('When a caller signs for the same server within half the lifetime, Then it reuses the assertion, and signs anew after', () => {
    let now = 1_000_000;
    const signer = devCallSigner('ai', () => now);
    const first = signer.assertionFor('subscriptions');
    now += 29_000;
    expect(signer.assertionFor('subscriptions')).toBe(first);
    expect(signer.assertionFor('flashcards')).not.toBe(first);
    now += 2_000;
    expect(signer.assertionFor('subscriptions')).not.toBe(first);
  });

  it('When a server verifies, Then only an unexpired assertion addressed to it and signed by a known caller passes', () => {
    let now = Date.now();
    const verifier = createCallVerifier('subscriptions', devTrustedCallers(['ai']), () => now);
    const ai = devCallSigner('ai');
    expect(verifier.verify(ai.assertionFor('subscriptions'))).toBe('ai');
    const refused = (assertion: string | undefined) => {
      try {
        verifier.verify(assertion);
      } catch (err) {
        return (err as { code: string; message: string }).code + ': ' + (err as Error).message;
      }
      return 'accepted';
    };
    expect(refused(undefined)).toMatch(/^UNAUTHORIZED: .*no x-lingua-call/);
    expect(refused(ai.assertionFor('flashcards'))).toMatch(/addressed to flashcards/);
    expect(refused(forge({ iss: 'ai', aud: 'subscriptions', exp: inAMinute() }))).toMatch(/bad signature/);
    expect(refused(devCallSigner('identity').assertionFor('subscriptions'))).toMatch(
      /unknown caller identity/,
    );
    expect(refused(forge({ iss: 'ai', aud: 'subscriptions', exp: inAMinute() + 3600 }))).toMatch(/too long/);
    expect(refused('v1.e30.abc')).toMatch(/malformed/);
    // the claims changed under a real signature
    const [, , sig] = ai.assertionFor('subscriptions').split('.');
    const tampered = Buffer.from(JSON.stringify({ iss: 'ai', aud: 'subscriptions', exp: inAMinute() - 10 }));
    expect(refused(`v1.${tampered.toString('base64url')}.${sig}`)).toMatch(/bad signature/);
    // an accepted one is remembered only until it expires
    const accepted = ai.assertionFor('subscriptions');
    now += 61_000;
    expect(refused(accepted)).toMatch(/expired/);
  });

  it('When keys come from the environment, Then a pair made by --keygen signs and verifies, and junk is refused', () => {
    const { signingKey, publicKey } = generateCallKeys();
    const signer = createCallSigner('identity', signingKeyFrom(signingKey));
    const verifier = createCallVerifier('flashcards', { identity: publicKeyFrom(publicKey) });
    expect(verifier.verify(signer.assertionFor('flashcards'))).toBe('identity');
    expect(() => signingKeyFrom('not base64 at all')).toThrow(/32 bytes in base64/);
    expect(() => publicKeyFrom(Buffer.alloc(31).toString('base64'))).toThrow(/32 bytes in base64/);
  });

  it('When an operator runs sign-call, Then it prints a header the server accepts; --keygen prints a pair', () => {
    const { code, out } = runSignCall(['operator', 'flashcards'], {});
    expect(code).toBe(0);
    const [name, value] = out.trim().split(': ');
    expect(name).toBe(CALL_ASSERTION_KEY);
    expect(createCallVerifier('flashcards', devTrustedCallers(['operator'])).verify(value)).toBe('operator');
    expect(runSignCall(['operator', 'flashcards'], { NODE_ENV: 'production' }).code).toBe(1);
    expect(runSignCall(['--keygen', 'ai'], {}).out).toMatch(
      /^AI_GRPC_SIGNING_KEY=[A-Za-z0-9+/=]{44}\nAI_GRPC_PUBLIC_KEY=[A-Za-z0-9+/=]{44}\n$/,
    );
    expect(runSignCall(['nobody', 'flashcards'], {}).code).toBe(2);
  });
});

describe('a gRPC server with allow-lists', () => {
  let server: GrpcServer;
  let address: string;
  beforeAll(async () => {
    server = createGrpcServer({
      logger: silentLogger(),
      serviceName: 'identity',
      callers: devTrustedCallers(['ai', 'operator']),
    });
    server.addService(
      IdentityService.service,
      {
        GetUser: () => ({ user: null }),
        ResolveUser: () => ({ user: null }),
        GetDevices: () => ({ devices: [] }),
        RemoveDevice: () => ({ removed: false }),
        GetUserLanguages: () => ({ found: false }),
      },
      { GetUser: ['ai'], ResolveUser: [], GetDevices: [], RemoveDevice: [], GetUserLanguages: [] },
    );
    address = `127.0.0.1:${await server.start(0)}`;
  });
  afterAll(() => server.stop(1000));

  /** A plain grpc-js call with the given assertion, as any pod on the network could make. */
  function rawCall(method: 'GetUser' | 'ResolveUser', assertion?: string): Promise<ServiceError | 'OK'> {
    const client = new IdentityService(address, credentials.createInsecure());
    const metadata = new Metadata();
    if (assertion !== undefined) metadata.set(CALL_ASSERTION_KEY, assertion);
    return new Promise((resolve) =>
      client[method](
        { user_id: 'u1' },
        metadata,
        { deadline: Date.now() + 2000 },
        (err: ServiceError | null) => {
          client.close();
          resolve(err ?? 'OK');
        },
      ),
    );
  }

  it('When a call comes without an assertion or with a forged one, Then it is UNAUTHENTICATED', async () => {
    expect(await rawCall('GetUser')).toMatchObject({ code: status.UNAUTHENTICATED });
    const forged = forge({ iss: 'ai', aud: 'identity', exp: inAMinute() });
    expect(await rawCall('GetUser', forged)).toMatchObject({ code: status.UNAUTHENTICATED });
  });

  it('When a known caller calls a method not allowed to it, Then it is PERMISSION_DENIED; the allowed one passes', async () => {
    const ai = devCallSigner('ai');
    expect(await rawCall('ResolveUser', ai.assertionFor('identity'))).toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    expect(await rawCall('GetUser', ai.assertionFor('identity'))).toBe('OK');
  });

  it('When the operator calls, Then every method accepts it, through createGrpcClient too', async () => {
    expect(await rawCall('ResolveUser', devCallSigner('operator').assertionFor('identity'))).toBe('OK');
    const client = createGrpcClient(IdentityService, address, { signer: devCallSigner('operator') });
    try {
      await expect(client.call('ResolveUser', { user_id: 'u1' })).resolves.toEqual({ user: null });
    } finally {
      client.close();
    }
  });

  it('When a method allows a caller whose key the server lacks, Then adding it fails at start, not on a call', () => {
    const lacking = createGrpcServer({ logger: silentLogger(), serviceName: 'identity', callers: {} });
    expect(() =>
      lacking.addService(
        IdentityService.service,
        { GetUser: () => ({ user: null }), ResolveUser: () => ({ user: null }) },
        { GetUser: ['ai'], ResolveUser: [] },
      ),
    ).toThrow(/allows ai, whose public key this server was not given/);
  });
});
