import { describeRedisTarget, parseRedisTarget } from './target';

describe('parseRedisTarget', () => {
  it('When only REDIS_URL is set, Then it is one server and durable writes wait for no replica', () => {
    expect(parseRedisTarget({ REDIS_URL: 'redis://u:p@h:6379' })).toEqual({
      mode: 'single',
      url: 'redis://u:p@h:6379',
      replicas: 0,
    });
  });

  it('When Sentinels are listed, Then the master name is required and REDIS_URL gives the data nodes credentials', () => {
    const t = parseRedisTarget({
      REDIS_URL: 'redis://identity:s%40cret@unused',
      REDIS_SENTINELS: 'redis-sentinel-0.x:26379, 10.0.0.2:26379,[::1]:26380',
      REDIS_SENTINEL_MASTER: 'lingua',
      REDIS_SENTINEL_PASSWORD: 'sp',
    });
    expect(t).toEqual({
      mode: 'sentinel',
      masterName: 'lingua',
      sentinels: [
        { host: 'redis-sentinel-0.x', port: 26379 },
        { host: '10.0.0.2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      username: 'identity',
      password: 's@cret',
      sentinelPassword: 'sp',
      replicas: 1,
    });
    expect(describeRedisTarget(t)).not.toContain('cret');
    expect(() => parseRedisTarget({ REDIS_URL: 'redis://h', REDIS_SENTINELS: 'a:1' })).toThrow(
      /REDIS_SENTINEL_MASTER: required/,
    );
  });

  it('When cluster nodes are listed, Then it is a cluster; bad lists and both modes at once are refused by name', () => {
    expect(
      parseRedisTarget({
        REDIS_URL: 'redis://h',
        REDIS_CLUSTER_NODES: 'a:7000,b:7001',
        REDIS_WAIT_REPLICAS: '0',
      }),
    ).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
      ],
      replicas: 0,
    });
    expect(() => parseRedisTarget({ REDIS_URL: 'redis://h', REDIS_CLUSTER_NODES: 'a' })).toThrow(
      /REDIS_CLUSTER_NODES: "a" is not host:port/,
    );
    expect(() =>
      parseRedisTarget({ REDIS_URL: 'redis://h', REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2' }),
    ).toThrow(/choose one/);
    expect(() => parseRedisTarget({ REDIS_URL: 'redis://h', REDIS_WAIT_REPLICAS: 'x' })).toThrow(
      /REDIS_WAIT_REPLICAS/,
    );
  });
});
