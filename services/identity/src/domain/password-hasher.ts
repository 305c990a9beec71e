import bcrypt from 'bcrypt';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Always spends one bcrypt comparison, also when there is no stored hash (no timing oracle). */
  verify(password: string, hash: string | null | undefined): Promise<boolean>;
}

/** bcrypt (native, async: runs on the libuv pool, never on the event loop). */
export function bcryptHasher(cost: number): PasswordHasher {
  // A real hash of a random value, so a miss costs the same as a hit.
  const dummy = bcrypt.hashSync(`dummy-${Math.random()}`, cost);
  return {
    hash: (password) => bcrypt.hash(password, cost),
    async verify(password, hash) {
      const ok = await bcrypt.compare(password, hash ?? dummy);
      return ok && Boolean(hash);
    },
  };
}
