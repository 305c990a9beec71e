import { dayIn, endOfDay, isTimeZone, plusDays, startOfDay, zoneOf } from './calendar';

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
