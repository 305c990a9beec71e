import fs from 'node:fs';
import path from 'node:path';
import { loadPackage, PROTO_FILES, PROTO_ROOT } from './load-package';

function protoFilesOnDisk(dir = PROTO_ROOT): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.proto'))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

describe('loadPackage', () => {
  it('When loaded, Then every Lingua service and the standard health service are constructors with their methods', () => {
    const proto = loadPackage();
    expect(Object.keys(proto.lingua.identity.v1.IdentityService.service)).toEqual([
      'GetUser',
      'ResolveUser',
      'GetDevices',
      'RemoveDevice',
      'GetUserLanguages',
    ]);
    expect(Object.keys(proto.lingua.flashcards.v1.FlashcardsService.service)).toEqual([
      'GetCardStats',
      'SetLearningPreferences',
    ]);
    expect(Object.keys(proto.lingua.subscriptions.v1.EntitlementsService.service)).toEqual([
      'CheckFeatureAccess',
      'GetEntitlements',
    ]);
    expect(Object.keys(proto.lingua.ai.v1.LanguageService.service)).toEqual([
      'GetWordLevel',
      'GetInflections',
      'FillBlank',
    ]);
    expect(proto.grpc.health.v1.Health.service.Watch.responseStream).toBe(true);
    expect(proto.lingua.identity.v1.IdentityService.service.GetUser.path).toBe(
      '/lingua.identity.v1.IdentityService/GetUser',
    );
  });

  it('When a message is decoded, Then the fixed options apply: snake_case, defaults, int64 as string, oneof name', () => {
    const { identity, common } = loadPackage().lingua;
    const getUser = identity.v1.IdentityService.service.GetUser;
    expect(getUser.requestDeserialize(getUser.requestSerialize({}))).toEqual({ user_id: '' });

    const resolveUser = identity.v1.IdentityService.service.ResolveUser;
    const decoded = resolveUser.requestDeserialize(resolveUser.requestSerialize({ email: 'a@b.co' }));
    expect(decoded).toMatchObject({ email: 'a@b.co', key: 'email' });

    const { Money } = common.v1;
    expect(Money.deserialize(Money.serialize({ amount_minor: '9007199254740993', currency: 'EUR' }))).toEqual(
      {
        amount_minor: '9007199254740993',
        currency: 'EUR',
      },
    );
  });

  it('When called twice, Then the definitions are parsed once and shared', () => {
    expect(loadPackage()).toBe(loadPackage());
  });

  it('When a .proto is added to proto/, Then PROTO_FILES lists it too', () => {
    expect([...PROTO_FILES].sort()).toEqual(protoFilesOnDisk());
  });
});
