/**
 * Certificate codes (05 section 4, docs/decisions/certificates.md, "Codes and the shard"): 10 bytes
 * (80 bits) from the CSPRNG written as 16 Crockford base32 characters, shown grouped
 * `XXXX-XXXX-XXXX-XXXX`. The public verify route knows no school, so the code must lead to its
 * shard: the first 5 bits of SHA-256 over the 10 bytes name one of 32 shard slots
 * (`DB_SCHOOLS_<n>`), and issuance draws until a code lands on the school's shard.
 */
export const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const SHARD_NAME = /^DB_SCHOOLS_(\d+)$/;
const CODE_BYTES = 10;
/** Shard slots a code can name (5 bits of the hash). */
export const SHARD_SLOTS = 32;
/**
 * Draws per code before giving up: one draw lands with probability 1/32, so 2048 misses in a row
 * happen with probability (31/32)^2048 ≈ 5e-29; reaching the bound means the CSPRNG is broken.
 */
const MAX_DRAWS = 2048;

/** The slot of shard `DB_SCHOOLS_<n>` (a shard beyond the 32 slots has no codes: fail loudly). */
export function shardSlot(shard: string): number {
  const index = Number(SHARD_NAME.exec(shard)?.[1] ?? Number.NaN);
  if (!Number.isInteger(index) || index < 0 || index >= SHARD_SLOTS) throw new Error(`certificate codes cannot name shard ${shard}`);
  return index;
}

/** 80 bits as 16 base32 characters, most significant first. */
function encode(bytes: Uint8Array): string {
  let out = "";
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** The 10 bytes of a canonical code. */
function decode(code: string): Uint8Array {
  const bytes = new Uint8Array(CODE_BYTES);
  let acc = 0;
  let bits = 0;
  let at = 0;
  for (const char of code) {
    acc = (acc << 5) | CROCKFORD.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (acc >> bits) & 255;
    }
    acc &= (1 << bits) - 1;
  }
  return bytes;
}

/** The slot the code's bytes hash to: the first 5 bits of their SHA-256. */
async function slotOf(bytes: Uint8Array): Promise<number> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return digest[0]! >> 3;
}

/** A fresh canonical code for a school on `shard`: 10 CSPRNG bytes, drawn again until they hash to the shard's slot. */
export async function newCode(shard: string): Promise<string> {
  const slot = shardSlot(shard);
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const bytes = crypto.getRandomValues(new Uint8Array(CODE_BYTES));
    if ((await slotOf(bytes)) === slot) return encode(bytes);
  }
  throw new Error(`no certificate code for ${shard} after ${MAX_DRAWS} draws`);
}

/** `count` fresh codes for `shard` (one set-based issuance). */
export async function newCodes(shard: string, count: number): Promise<string[]> {
  const codes: string[] = [];
  for (let i = 0; i < count; i++) codes.push(await newCode(shard));
  return codes;
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

/** The shard a canonical code hashes to (it may be a slot no shard fills). */
export async function shardOfCode(code: string): Promise<string> {
  return `DB_SCHOOLS_${await slotOf(decode(code))}`;
}
