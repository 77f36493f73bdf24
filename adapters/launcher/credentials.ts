import type { AuthStore } from '../../store/auth-db.js';
import { hashPassword, verifyPassword } from './password.js';

export type LoginCheck = 'accepted' | 'wrong_password' | 'not_initialized';
export type SetOutcome = 'set' | 'already_initialized';
/** `first_run` refuses when a password exists (two first-run setups racing); `replace` is for a signed-in user. */
export type SetMode = 'first_run' | 'replace';

export interface Credentials {
  initialized(): Promise<boolean>;
  check(password: string): Promise<LoginCheck>;
  set(password: string, mode: SetMode): Promise<SetOutcome>;
}

/** The dashboard password over an auth store; passwords are trimmed (see passwordProblem). */
export function credentials(store: AuthStore): Credentials {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    initialized: async () => (await store.passwordHash()) !== undefined,
    async check(password) {
      const hash = await store.passwordHash();
      if (hash === undefined) return 'not_initialized';
      return (await verifyPassword(hash, password.trim())) ? 'accepted' : 'wrong_password';
    },
    set: (password, mode) =>
      serial(async () => {
        if (mode === 'first_run' && (await store.passwordHash()) !== undefined) return 'already_initialized';
        await store.setPasswordHash(await hashPassword(password.trim()));
        return 'set';
      }),
  };
}
