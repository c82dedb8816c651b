/**
 * Certificate codes (05 section 4, docs/decisions/certificates.md, "Codes and the shard"): 16
 * Crockford base32 characters, shown grouped `XXXX-XXXX-XXXX-XXXX`. The first character names the
 * school's shard (0-31: `DB_SCHOOLS_<n>`), the other 15 carry 75 bits from the CSPRNG, so the public
 * verify route reads one shard without knowing the school.
 */
export const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const SHARD_NAME = /^DB_SCHOOLS_(\d+)$/;

/** The shard's number as the code's first character (a shard beyond 31 has no code: fail loudly). */
export function shardCharacter(shard: string): string {
  const index = Number(SHARD_NAME.exec(shard)?.[1] ?? Number.NaN);
  if (!Number.isInteger(index) || index < 0 || index >= CROCKFORD.length) throw new Error(`certificate codes cannot name shard ${shard}`);
  return CROCKFORD[index]!;
}

/** A fresh canonical code for a school on `shard`. */
export function newCode(shard: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(15));
  // Each byte's low five bits: 15 × 5 = 75 uniform bits (256 is a multiple of 32, so no bias).
  return shardCharacter(shard) + Array.from(bytes, (byte) => CROCKFORD[byte & 31]).join("");
}

/** `XXXX-XXXX-XXXX-XXXX`. */
export function groupCode(code: string): string {
  return code.match(/.{1,4}/g)!.join("-");
}

/**
 * The canonical code of what a visitor typed: dashes and spaces dropped, case ignored, and the
 * Crockford look-alikes read as their digit (I, L → 1; O → 0). Null when it cannot be a code.
 */
export function canonicalCode(input: string): string | null {
  if (input.length > 64) return null;
  const cleaned = input.replace(/[-\s]/g, "").toUpperCase().replace(/[IL]/g, "1").replace(/O/g, "0");
  if (cleaned.length !== 16) return null;
  for (const char of cleaned) if (!CROCKFORD.includes(char)) return null;
  return cleaned;
}

/** The shard a canonical code names. */
export function shardOfCode(code: string): string {
  return `DB_SCHOOLS_${CROCKFORD.indexOf(code[0]!)}`;
}
