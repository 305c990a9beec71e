import {
  dayIn,
  endOfDay,
  instantAt,
  isTimeZone,
  nextTimeOfDay,
  plusDays,
  startOfDay,
  zoneOf,
} from './calendar';

const hours = (day: string, zone: string) =>
  (endOfDay(day, zone).getTime() + 1 - startOfDay(day, zone).getTime()) / 3600_000;

describe('the user’s calendar', () => {
  it('When an instant is read in a zone, Then its day is that zone’s (whole, half and three-quarter hour offsets)', () => {
    const at = new Date('2026-11-27T17:47:00Z');
    expect(dayIn(at, 'UTC')).toBe('2026-11-27');
    expect(dayIn(at, 'Asia/Tokyo')).toBe('2026-11-28');
    expect(dayIn(new Date('2026-11-27T18:29:59Z'), 'Asia/Kolkata')).toBe('2026-11-27');
    expect(dayIn(new Date('2026-11-27T18:30:00Z'), 'Asia/Kolkata')).toBe('2026-11-28');
    expect(startOfDay('2026-11-28', 'Asia/Kathmandu').toISOString()).toBe('2026-11-27T18:15:00.000Z');
    expect(startOfDay('2026-11-27', 'America/St_Johns').toISOString()).toBe('2026-11-27T03:30:00.000Z');
  });

  it('When a day has a DST change, Then it lasts 23 or 25 hours and starts at local midnight', () => {
    expect(startOfDay('2026-03-08', 'America/New_York').toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(hours('2026-03-08', 'America/New_York')).toBe(23);
    expect(hours('2026-11-01', 'America/New_York')).toBe(25);
    expect(hours('2026-03-29', 'Europe/Berlin')).toBe(23);
    // Lord Howe Island moves by half an hour
    expect(hours('2026-10-04', 'Australia/Lord_Howe')).toBe(23.5);
  });

  it('When local midnight does not exist (Santiago jumps from 24:00 to 01:00), Then the day starts at its first instant', () => {
    expect(startOfDay('2026-09-06', 'America/Santiago').toISOString()).toBe('2026-09-06T04:00:00.000Z');
    expect(dayIn(startOfDay('2026-09-06', 'America/Santiago'), 'America/Santiago')).toBe('2026-09-06');
    expect(endOfDay('2026-09-05', 'America/Santiago').toISOString()).toBe('2026-09-06T03:59:59.999Z');
  });

  it('When zones are given, Then the first valid one wins (profile, then header), else UTC', () => {
    expect(zoneOf(null, 'Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(zoneOf('Europe/Berlin', 'Asia/Tokyo')).toBe('Europe/Berlin');
    expect(zoneOf('Mars/Olympus', undefined)).toBe('UTC');
    expect(isTimeZone('Asia/Kathmandu')).toBe(true);
    expect(isTimeZone('')).toBe(false);
    expect(plusDays('2026-02-28', 1)).toBe('2026-03-01');
  });
});

describe('a time of day in the zone (the reminder instant)', () => {
  it.each([
    // zone, day, time, instant
    ['Asia/Kathmandu', '2026-11-27', '19:00', '2026-11-27T13:15:00.000Z'], // +5:45
    ['Asia/Kolkata', '2026-11-27', '08:30', '2026-11-27T03:00:00.000Z'], // +5:30
    ['America/St_Johns', '2026-11-27', '19:00', '2026-11-27T22:30:00.000Z'], // −3:30
    ['America/St_Johns', '2026-07-01', '19:00', '2026-07-01T21:30:00.000Z'], // −2:30 in summer
    ['Australia/Adelaide', '2026-11-27', '07:00', '2026-11-26T20:30:00.000Z'], // +10:30 in summer
    // New York springs forward at 02:00 on 8 March 2026: 02:30 does not exist, it is 03:30 EDT
    ['America/New_York', '2026-03-08', '02:30', '2026-03-08T07:30:00.000Z'],
    ['America/New_York', '2026-03-08', '19:00', '2026-03-08T23:00:00.000Z'], // EDT −4 that evening
    // and falls back at 02:00 on 1 November 2026: 01:30 shows twice, the first (EDT) counts
    ['America/New_York', '2026-11-01', '01:30', '2026-11-01T05:30:00.000Z'],
    ['America/New_York', '2026-11-01', '19:00', '2026-11-02T00:00:00.000Z'], // EST −5 that evening
  ])('%s on %s at %s is %s', (zone, day, time, iso) => {
    expect(instantAt(day, time, zone).toISOString()).toBe(iso);
  });

  it('When the time has passed today, Then the next one is tomorrow; across a DST change the day still has one', () => {
    const zone = 'America/New_York';
    // 7 March 19:00 EST, then 8 March 19:00 EDT: 23 hours later
    const first = nextTimeOfDay(new Date('2026-03-07T12:00:00Z'), '19:00', zone);
    expect(first.toISOString()).toBe('2026-03-08T00:00:00.000Z');
    const second = nextTimeOfDay(first, '19:00', zone);
    expect(second.toISOString()).toBe('2026-03-08T23:00:00.000Z');
    expect(second.getTime() - first.getTime()).toBe(23 * 3600_000);
    // strictly after: at the very instant, the next day's
    expect(nextTimeOfDay(second, '19:00', zone).toISOString()).toBe('2026-03-09T23:00:00.000Z');
  });
});
