/**
 * How many channel accounts one member should run: the accounts spread as evenly as the members allow, rounded up so
 * that every account has a place (3 accounts on 2 members: 2 each at most).
 */
export function fairShare(accounts: number, members: number): number {
  return members <= 0 ? accounts : Math.ceil(accounts / members);
}
