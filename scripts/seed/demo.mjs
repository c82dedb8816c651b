import { literal } from "../lib/sql.mjs";

/** The demo schools' fixed ids and logins, shared by every seed section. */

export const DAY_MS = 86_400_000;

/** Fixed UUIDv7-shaped ids (timestamp 2025-01-01), recognisable in logs and stable across runs. */
export const id = (n) => `01941f29-7c00-7000-8000-${n.toString(16).padStart(12, "0")}`;

export const DEMO_PASSWORD = "demo12345";

/** Where the seed writes: the control database, and the two schools on different shards (so a local run exercises both). */
export const CONTROL = "DB";

export const DEMO = {
  subdomain: "demo",
  tenantId: id(0x001),
  shard: "DB_SCHOOLS_0",
  admin: { id: id(0x101), email: "admin@demo.test", firstName: "Ada", lastName: "Admin" },
  restrictedCurator: { id: id(0x201), permissionsId: id(0x501), email: "curator.restricted@demo.test", firstName: "Rita", lastName: "Restricted" },
  curator: { id: id(0x202), permissionsId: id(0x502), email: "curator@demo.test", firstName: "Paul", lastName: "Privileged" },
  students: [
    { id: id(0x301), email: "student1@demo.test", firstName: "Sara", lastName: "Student" },
    { id: id(0x302), email: "student2@demo.test", firstName: "Timur", lastName: "Student" },
    { id: id(0x303), email: "student3@demo.test", firstName: "Lola", lastName: "Student" },
    { id: id(0x304), email: "student4@demo.test", firstName: "Omar", lastName: "Student" },
  ],
  groupId: id(0x401),
  eveningGroupId: id(0x402),
  logoAssetId: id(0x701),
  handoutAssetId: id(0x702),
};

/** A second school on a short trial, to try activation and expiry on. */
export const TRIAL = {
  subdomain: "trial",
  tenantId: id(0x002),
  shard: "DB_SCHOOLS_1",
  admin: { id: id(0x102), email: "admin@trial.test", firstName: "Tanya", lastName: "Trial" },
};

/** The demo payment that activated the school (billing writes it, the push history names it). */
export const DEMO_PAYMENT_ID = id(0x611);

/** A row written once (any unique conflict, including a device re-registered by hand, keeps what is there). */
export function insertOnce(table, row) {
  const columns = Object.keys(row);
  return `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map((c) => literal(row[c])).join(", ")}) ON CONFLICT DO NOTHING;`;
}
