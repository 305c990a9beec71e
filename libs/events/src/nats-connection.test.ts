import { natsUrl } from '@lingua/testing';
import { connectNats } from './nats-connection';

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
