import * as z from 'zod';

export const MIN_PASSWORD_LENGTH = 8;
// Bounds the scrypt input so a huge body cannot be used to burn CPU.
export const MAX_PASSWORD_LENGTH = 1024;

const password = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .max(MAX_PASSWORD_LENGTH, `${field} must be at most ${MAX_PASSWORD_LENGTH} characters`);

export const SetupBody = z.object(
  {
    password: password('password'),
    confirm: password('confirm'),
    /** Needed for the first password only (a signed-in change needs none): the token tern-launcher printed. */
    setup_token: z
      .string({ error: 'setup_token must be a string' })
      .max(256, 'setup_token must be at most 256 characters')
      .optional(),
  },
  { error: 'body must be a JSON object with "password" and "confirm"' },
);
export const LoginBody = z.object(
  { password: password('password') },
  { error: 'body must be a JSON object with "password"' },
);

/**
 * Passwords are trimmed at setup and at login alike, so stray spaces from copy and paste never lock anyone out.
 * Returns why a new password is refused, or undefined when it is acceptable.
 */
export function passwordProblem(password: string, confirm: string): { code: string; message: string } | undefined {
  if (password.trim().length < MIN_PASSWORD_LENGTH)
    return {
      code: 'password_too_short',
      message: `password must be at least ${MIN_PASSWORD_LENGTH} characters (spaces at either end do not count)`,
    };
  if (password.trim() !== confirm.trim()) return { code: 'password_mismatch', message: 'confirm must equal password' };
  return undefined;
}

export function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'invalid body';
}
