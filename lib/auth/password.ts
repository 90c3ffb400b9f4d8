import bcrypt from "bcryptjs";

/** bcrypt's cost for every stored password. */
export const BCRYPT_COST = 10;

export const hashPassword = (plain: string) => bcrypt.hash(plain, BCRYPT_COST);

// A real hash of a random string: comparing against it costs what a real comparison costs, so an
// unknown username takes as long as a wrong password.
const DUMMY_HASH = bcrypt.hashSync(`qiao-dummy-${Math.random()}`, BCRYPT_COST);

/** Compares against `hash`, or against a dummy hash when the user does not exist. */
export async function verifyPassword(plain: string, hash: string | null | undefined): Promise<boolean> {
  const matches = await bcrypt.compare(plain, hash || DUMMY_HASH);
  return matches && !!hash;
}
