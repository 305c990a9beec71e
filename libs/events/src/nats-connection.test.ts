import { natsUrl } from '@lingua/testing';
import { connectNats, natsCredentials } from './nats-connection';

describe('connecting to NATS with a seed list', () => {
  it('When NATS_URL is a comma-separated seed list with an unreachable server in it, Then the client tries the list and connects to the one that answers', async () => {
    const nats = await connectNats(`nats://127.0.0.1:1, ${natsUrl()}`, { name: 'seed-list-test' });
    try {
      await nats.ping();
      expect(nats.nc.getServer()).toBe(new URL(natsUrl()).host);
    } finally {
      await nats.close();
    }
  });

  it('When the servers come as an array, Then they are used as they are', async () => {
    const nats = await connectNats([natsUrl()], { name: 'seed-array-test' });
    try {
      await nats.ping();
    } finally {
      await nats.close();
    }
  });
});

describe('a NATS identity in NATS_URL', () => {
  it('When the seed list carries user and password, Then they are taken out of the URLs and given as the credentials', () => {
    expect(natsCredentials(['nats://identity:p%40ss@a:4222', 'nats://b:4223'])).toEqual({
      servers: ['nats://a:4222', 'nats://b:4223'],
      user: 'identity',
      pass: 'p@ss',
    });
    expect(natsCredentials(['nats://a:4222'])).toEqual({ servers: ['nats://a:4222'] });
    expect(() => natsCredentials(['nats://identity:x@a:4222', 'nats://ai:y@b:4222'])).toThrow(
      /different credentials/,
    );
  });
});
