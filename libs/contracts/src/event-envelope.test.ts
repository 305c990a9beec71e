import { makeEvent, parseEvent } from './event-envelope';

describe('event contracts', () => {
  it('When an event is made, Then it has id, event, version, timestamp and validated data', () => {
    const e = makeEvent(
      'user.created',
      { userId: 'u1', email: 'a@b.co', username: 'ann', authProvider: 'password' },
      { now: new Date('2026-01-01T00:00:00Z') },
    );
    expect(e).toMatchObject({
      event: 'user.created',
      version: 1,
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { userId: 'u1' },
    });
    expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(parseEvent(JSON.parse(JSON.stringify(e)))).toEqual(e);
  });

  it('When a payload breaks its schema, Then making or parsing it fails', () => {
    expect(() =>
      makeEvent('achievement.unlocked', { userId: 'u1', achievementId: 'a', name: 'n', xp: -1 }),
    ).toThrow();
    const e = makeEvent('user.deleted', { userId: 'u1' });
    expect(() => parseEvent({ ...e, data: {} })).toThrow();
    expect(() => parseEvent({ ...e, event: 'user.exploded' })).toThrow();
  });
});
