import { uniqueName } from '@lingua/testing';
import { imageModel } from '../src/data-access/image.model';
import { type AiUnderTest, call, startAi, startEntitlementsStandIn, tokenFor } from './support';

// Two replicas of the AI service on one database: an image rendered by one is served by the other.
let a: AiUnderTest;
let b: AiUnderTest;
let entitlements: Awaited<ReturnType<typeof startEntitlementsStandIn>>;

beforeAll(async () => {
  entitlements = await startEntitlementsStandIn();
  const shared = { SUBSCRIPTIONS_ADDR: entitlements.address, AI_MONGO_DB: uniqueName('images_ai') };
  a = await startAi(shared);
  b = await startAi(shared);
}, 120_000);

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await entitlements?.stop();
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('generated images in GridFS', () => {
  it('When an image is rendered through one replica, Then the other serves it, and its bytes are in GridFS, not in the document', async () => {
    const user = tokenFor(a);
    const created = await call(a.service.httpUrl, 'POST', '/api/ai/images', {
      headers: user.headers,
      body: { description: 'A green kettle on a stove.' },
    });
    expect(created.status).toBe(201);
    const { id, url } = created.body.data as { id: string; url: string };

    const file = await call(b.service.httpUrl, 'GET', url, { headers: tokenFor(b).headers });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const png = file.body as Buffer;
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(file.headers.get('content-length')).toBe(String(png.length));

    const db = a.service.deps.mongo.connection.db!;
    const doc = await db.collection('images').findOne({ _id: id as never });
    expect(doc).toMatchObject({ userId: expect.any(String), contentType: 'image/png' });
    expect(doc).not.toHaveProperty('data');
    expect(await db.collection('images.files').findOne({ _id: id as never })).toMatchObject({
      length: png.length,
    });
  });

  it('When an image was stored before GridFS (bytes inline in its document), Then it is still served', async () => {
    const id = '0b8d6f52-3a51-4c3e-9d3c-6a1f0e2b7c44';
    const bytes = Buffer.concat([PNG_SIGNATURE, Buffer.from('legacy image bytes')]);
    await imageModel(a.service.deps.mongo.connection).create({
      _id: id,
      userId: 'u-legacy',
      description: 'old',
      provider: 'local',
      contentType: 'image/png',
      width: 1,
      height: 1,
      data: bytes,
      createdAt: new Date(),
    });
    const file = await call(b.service.httpUrl, 'GET', `/api/ai/images/${id}`, {
      headers: tokenFor(b).headers,
    });
    expect(file.status).toBe(200);
    expect(file.body).toEqual(bytes);
  });
});
