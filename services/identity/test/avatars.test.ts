import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { uniqueName } from '@lingua/testing';
import { bearer, eventually, type Harness, newUser, startIdentity } from './harness';

jest.setTimeout(180_000);

// Two replicas of identity on one database, as Kubernetes runs them: what one stores, the other serves.
let a: Harness;
let b: Harness;

beforeAll(async () => {
  const shared = {
    IDENTITY_MONGO_DB: uniqueName('avatars_identity'),
    EVENTS_STREAM: uniqueName('AVATARS').toUpperCase(),
    EVENTS_SUBJECT_PREFIX: uniqueName('avatars').toLowerCase(),
  };
  a = await startIdentity(shared);
  b = await startIdentity(shared);
}, 180_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');
/** Bytes that pass as a PNG by their signature, `size` long, random after it (several GridFS chunks). */
const png = (size: number) => Buffer.concat([PNG_SIGNATURE, randomBytes(size - PNG_SIGNATURE.length)]);

async function account(h: Harness) {
  const res = await h.post('/api/v1/auth/register', newUser());
  expect(res.status).toBe(201);
  return res.body.data.accessToken as string;
}

const upload = (h: Harness, token: string, file: Buffer) => {
  const form = new FormData();
  form.append('avatar', new Blob([new Uint8Array(file)], { type: 'image/png' }), 'me.png');
  return h.request('PUT', '/api/users/profile', { raw: form, headers: bearer(token) });
};

const db = () => a.service.deps.mongo.connection.db!;
/** Chunks whose file is not (or not yet) in avatars.files: what a failed upload could leave. */
async function orphanChunks(): Promise<number> {
  const ids = (
    await db()
      .collection('avatars.files')
      .find({}, { projection: { _id: 1 } })
      .toArray()
  ).map((f) => f._id);
  return db()
    .collection('avatars.chunks')
    .countDocuments({ files_id: { $nin: ids } });
}

describe('avatars in GridFS across replicas', () => {
  it('When an avatar is uploaded through one replica, Then the other serves the same bytes, streamed', async () => {
    const token = await account(a);
    const file = png(3 * 1024 * 1024 + 123);
    const res = await upload(a, token, file);
    expect(res.status).toBe(200);
    const url = res.body.data.user.profile.avatarUrl as string;

    const served = await fetch(`${b.url}${url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('content-length')).toBe(String(file.length));
    expect(Buffer.from(await served.arrayBuffer()).equals(file)).toBe(true);
  });

  it('When the avatar is replaced through the other replica, Then the old file is gone from the database', async () => {
    const token = await account(a);
    const first = (await upload(a, token, png(300_000))).body.data.user.profile.avatarUrl as string;
    const second = await upload(b, token, png(400_000));
    expect(second.status).toBe(200);
    const secondUrl = second.body.data.user.profile.avatarUrl as string;
    expect(secondUrl).not.toBe(first);

    expect((await fetch(`${a.url}${first}`)).status).toBe(404);
    expect((await fetch(`${a.url}${secondUrl}`)).status).toBe(200);
    const oldName = first.split('/').pop()!;
    expect(await db().collection('avatars.chunks').countDocuments({ files_id: oldName })).toBe(0);
  });

  it('When an upload passes the free limit, Then it is refused (413) while streaming and nothing of it is kept', async () => {
    const token = await account(a);
    const before = await db().collection('avatars.files').countDocuments();
    const res = await upload(a, token, png(10 * 1024 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('VAL002');
    expect(await db().collection('avatars.files').countDocuments()).toBe(before);
    expect(await orphanChunks()).toBe(0);

    const profile = await b.request('GET', '/api/users/profile', { headers: bearer(token) });
    expect(profile.status).toBe(200);
    expect(profile.body.data.profile.avatarUrl).toBeNull();
  });

  it('When the client goes away in the middle of an upload, Then the chunks already stored are deleted', async () => {
    const token = await account(a);
    const boundary = 'x' + randomBytes(8).toString('hex');
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="me.png"\r\n` +
        'Content-Type: image/png\r\n\r\n',
    );
    const url = new URL('/api/users/profile', a.url);
    const req = http.request(url, {
      method: 'PUT',
      headers: {
        ...bearer(token),
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + 8 * 1024 * 1024),
      },
    });
    req.on('error', () => undefined);
    req.write(head);
    // 4 MiB of an announced 8 MiB: chunks reach the database (in batches of 2 MiB) before the client leaves
    req.write(png(4 * 1024 * 1024));
    await eventually(async () => {
      expect(await db().collection('avatars.chunks').countDocuments()).toBeGreaterThan(0);
      expect(await orphanChunks()).toBeGreaterThan(0);
    });
    req.destroy();
    await eventually(async () => expect(await orphanChunks()).toBe(0));
  });
});
