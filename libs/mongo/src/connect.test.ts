import { ConnectionString } from 'mongodb-connection-string-url';
import { capturedLogger, mongoUrl, uniqueName } from '@lingua/testing';
import { connectMongo, describeMongoUrl } from './connect';

describe('connecting with a full connection string', () => {
  it('When the URL names another database in its path and carries options, Then the service database comes from dbName and the URL is not rewritten', async () => {
    const dbName = uniqueName('mongo_dbname');
    const url = new ConnectionString(mongoUrl());
    url.pathname = '/not_this_database';
    url.searchParams.set('appName', 'lingua-connect-test');
    url.searchParams.set('authSource', 'admin');
    const handle = await connectMongo(url.toString(), dbName);
    try {
      expect(handle.connection.db?.databaseName).toBe(dbName);
      await handle.connection.collection('probe').insertOne({ at: new Date() });
      const names = (await handle.connection.db!.admin().listDatabases()).databases.map((d) => d.name);
      expect(names).toContain(dbName);
      expect(names).not.toContain('not_this_database');
    } finally {
      await handle.connection.dropDatabase();
      await handle.close();
    }
  });

  it('When connected, Then every pool checks its connections once a second, not ten times, and mongoose neither buffers nor builds indexes', async () => {
    const handle = await connectMongo(mongoUrl(), uniqueName('mongo_pool'));
    try {
      // a pool exists once an operation has checked out a connection
      await handle.ping();
      const servers = (
        handle.connection.getClient() as unknown as {
          topology: {
            s: { servers: Map<string, { pool: { options: { minPoolSizeCheckFrequencyMS: number } } }> };
          };
        }
      ).topology.s.servers;
      expect(servers.size).toBeGreaterThan(0);
      for (const server of servers.values())
        expect(server.pool.options.minPoolSizeCheckFrequencyMS).toBe(1_000);
      expect(handle.connection.config).toMatchObject({ bufferCommands: false, autoIndex: false });
    } finally {
      await handle.close();
    }
  });

  it('When the hosts do not answer, Then the log names every host it tried and the connection fails within the selection timeout', async () => {
    const { logger, lines } = capturedLogger('mongo-test');
    const url = 'mongodb://127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0';
    await expect(
      connectMongo(url, uniqueName('mongo_nowhere'), { serverSelectionTimeoutMS: 300, logger }),
    ).rejects.toThrow();
    const connecting = lines.find((l) => l.msg === 'connecting to MongoDB');
    expect(connecting?.mongo).toMatchObject({ hosts: ['127.0.0.1:1', '127.0.0.1:2'], replicaSet: 'rs0' });
    const unreachable = lines.find((l) => l.msg === 'MongoDB unreachable');
    expect(Object.keys(unreachable?.servers as object).sort()).toEqual(['127.0.0.1:1', '127.0.0.1:2']);
  });

  it('When a connection string carries credentials, Then what is logged of it has none', () => {
    const described = describeMongoUrl('mongodb+srv://app:s3cret@cluster0.example.net/?replicaSet=rs0');
    expect(described).toEqual({ hosts: ['cluster0.example.net'], srv: true, replicaSet: 'rs0' });
    expect(JSON.stringify(described)).not.toMatch(/s3cret|app:/);
  });
});

describe('the write concern of production connections', () => {
  const writeConcernOf = async (url: string, production: boolean) => {
    const handle = await connectMongo(url, uniqueName('mongo_wc'), { production });
    try {
      await handle.connection.collection('probe').insertOne({ at: new Date() });
      return handle.connection.getClient().options.writeConcern?.w;
    } finally {
      await handle.connection.dropDatabase();
      await handle.close();
    }
  };

  it('When a production service connects with a URL that does not set w, Then its writes wait for a majority', async () => {
    expect(await writeConcernOf(mongoUrl(), true)).toBe('majority');
  });

  it('When the production URL sets w itself, Then that is used as written; outside production nothing is added', async () => {
    const url = new ConnectionString(mongoUrl());
    url.searchParams.set('w', '1');
    expect(await writeConcernOf(url.toString(), true)).toBe(1);
    expect(await writeConcernOf(mongoUrl(), false)).toBeUndefined();
  });
});
