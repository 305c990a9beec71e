import { endedByReplacement } from './plan-change.use-case';
import { DAY_MS, type Subscription } from './subscription';

const now = new Date('2026-06-01T00:00:00Z');
const sub = (o: Partial<Subscription>) =>
  ({
    id: 'old',
    status: 'active',
    expiresAt: new Date(now.getTime() + 10 * DAY_MS),
    autoRenewal: true,
    replacedBy: null,
    ...o,
  }) as Subscription;
const successor = sub({ id: 'new', expiresAt: new Date(now.getTime() + 30 * DAY_MS) });

describe('endedByReplacement', () => {
  it('When the successor grants access, Then the old one expires now, renews no more and names its successor', () => {
    expect(endedByReplacement(sub({}), successor, now)).toMatchObject({
      status: 'expired',
      expiresAt: now,
      autoRenewal: false,
      replacedBy: 'new',
    });
  });
  it('When it already lapsed, Then its own end date is kept', () => {
    const lapsed = new Date(now.getTime() - DAY_MS);
    expect(endedByReplacement(sub({ status: 'expired', expiresAt: lapsed }), successor, now)?.expiresAt).toBe(
      lapsed,
    );
  });
  it('When already replaced, or the successor is not paid yet, Then nothing changes', () => {
    expect(endedByReplacement(sub({ replacedBy: 'new' }), successor, now)).toBeUndefined();
    expect(endedByReplacement(sub({ replacedBy: 'earlier' }), successor, now)).toBeUndefined();
    expect(endedByReplacement(sub({}), { ...successor, status: 'pending' }, now)).toBeUndefined();
  });
});
