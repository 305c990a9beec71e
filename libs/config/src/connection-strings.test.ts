import { z } from 'zod';
import { parseMongoUrl, parseNatsServers } from './connection-strings';
import { ConfigError, env, parseConfig } from './load-config';

const schema = z.object({
  MONGO_URL: env.mongoUrl('mongodb://127.0.0.1:27017'),
  NATS_URL: env.natsServers('nats://127.0.0.1:4222'),
});

const refusedVariables = (source: Record<string, string>) => {
  try {
    parseConfig(schema, source);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.variable}: ${i.message}`);
    throw err;
  }
  return [];
};

describe('MONGO_URL: any MongoDB connection string', () => {
  it.each([
    ['one host', 'mongodb://127.0.0.1:27017', ['127.0.0.1:27017']],
    [
      'a replica set',
      'mongodb://db-0:27017,db-1:27017,db-2:27017/?replicaSet=rs0',
      ['db-0:27017', 'db-1:27017', 'db-2:27017'],
    ],
    [
      'credentials with authSource and a path database',
      'mongodb://app:p%40ss@h1,h2:27018/admin?authSource=admin&replicaSet=rs0&w=majority',
      ['h1', 'h2:27018'],
    ],
    [
      'TLS options',
      'mongodb://h1:27017,h2:27017/?replicaSet=rs0&tls=true&tlsCAFile=%2Fetc%2Fssl%2Fca.pem&tlsCertificateKeyFile=%2Fetc%2Fssl%2Fclient.pem',
      ['h1:27017', 'h2:27017'],
    ],
    [
      'mongodb+srv',
      'mongodb+srv://cluster0.example.net/?retryWrites=true&w=majority',
      ['cluster0.example.net'],
    ],
    ['an IPv6 host', 'mongodb://[::1]:27017', ['[::1]:27017']],
  ])('When it is %s, Then it is accepted as written', (_form, url, hosts) => {
    expect(parseConfig(schema, { MONGO_URL: url }).MONGO_URL).toBe(url);
    expect(parseMongoUrl(url).hosts).toEqual(hosts);
  });

  it('When it is mongodb+srv, Then it says so', () => {
    expect(parseMongoUrl('mongodb+srv://cluster0.example.net/').srv).toBe(true);
  });

  it.each([
    ['not a URL', 'not a url', /Invalid scheme/],
    ['another scheme', 'http://db:27017', /Invalid scheme/],
    ['no host', 'mongodb://', /host list are required/],
    ['an empty host in the list', 'mongodb://h1:27017,,h2:27017', /empty host/],
    ['a port out of range', 'mongodb://h1:27017,h2:99999/?replicaSet=rs0', /h2:99999.*invalid port/],
    ['a port that is not a number', 'mongodb://h1:abc', /invalid port/],
    ['mongodb+srv with a port', 'mongodb+srv://cluster0.example.net:27017/', /cannot have port/],
    [
      'mongodb+srv with several names',
      'mongodb+srv://a.example.net,b.example.net/',
      /multiple service names/,
    ],
  ])('When it is %s, Then the error names MONGO_URL and says why', (_form, url, reason) => {
    const issues = refusedVariables({ MONGO_URL: url });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^MONGO_URL: /);
    expect(issues[0]).toMatch(reason);
  });
});

describe('NATS_URL: one server or a seed list', () => {
  it.each([
    ['one URL', 'nats://127.0.0.1:4222', ['nats://127.0.0.1:4222']],
    [
      'a seed list',
      'nats://nats-0.nats:4222,nats://nats-1.nats:4222,nats://nats-2.nats:4222',
      ['nats://nats-0.nats:4222', 'nats://nats-1.nats:4222', 'nats://nats-2.nats:4222'],
    ],
    ['spaces after the commas', 'nats://a:4222, nats://b:4222', ['nats://a:4222', 'nats://b:4222']],
    [
      'TLS and credentials',
      'tls://svc:secret@a:4443,tls://svc:secret@b:4443',
      ['tls://svc:secret@a:4443', 'tls://svc:secret@b:4443'],
    ],
    ['bare host:port entries', 'a:4222,b:4222', ['a:4222', 'b:4222']],
  ])('When it is %s, Then every server is kept for the client', (_form, value, servers) => {
    expect(parseConfig(schema, { NATS_URL: value }).NATS_URL).toBe(value);
    expect(parseNatsServers(value)).toEqual(servers);
  });

  it.each([
    ['not a URL', 'nats://exa mple:4222', /not a NATS server URL/],
    ['another scheme', 'http://a:4222', /scheme must be nats/],
    ['an empty entry', 'nats://a:4222,,nats://b:4222', /empty entry/],
    ['a trailing comma', 'nats://a:4222,', /empty entry/],
    ['a path', 'nats://a:4222/x', /must not have a path/],
    ['a port out of range', 'nats://a:4222,nats://b:70000', /not a NATS server URL|invalid port/],
  ])('When it is %s, Then the error names NATS_URL', (_form, value, reason) => {
    const issues = refusedVariables({ NATS_URL: value });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^NATS_URL: /);
    expect(issues[0]).toMatch(reason);
  });
});
