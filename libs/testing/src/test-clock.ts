/** A clock tests move by hand: time-dependent rules are tested without sleeping. */
export class TestClock {
  private t: number;

  constructor(start: string | Date = '2026-01-01T00:00:00Z') {
    this.t = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.t);
  }

  advance(ms: number): this {
    this.t += ms;
    return this;
  }
}
