import { env } from "cloudflare:test";
import * as schema from "../../src/db/schema";
import { hashPassword } from "../../src/platform/auth/password";
import { DAY_MS } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import type { Permission, Role } from "../../src/core/http/context";
import { api } from "./http";

import { db } from "./databases";
import { jobContext } from "../../src/contributors";
import { shardForNewSchool } from "../../src/platform/schools/new-school";

export { db };

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

export const DEFAULT_PASSWORD = "correct-horse-battery";

export interface SchoolOptions {
  status?: "pending" | "active";
  planState?: "trial" | "paid" | "suspended";
  expiresAt?: number | null;
  suspendedManually?: boolean;
  timezone?: string;
  /** A school database binding (`DB_SCHOOLS_1`); default the new-school rule. */
  shard?: string;
}

export async function createSchool(options: SchoolOptions = {}) {
  const now = Date.now();
  const slug = `s${unique()}`.toLowerCase().replace(/[^a-z0-9]/g, "");
  const row = {
    id: uuidv7(),
    // The rule of every new school (the shard with the fewest): a file's schools alternate shards.
    shard: options.shard ?? (await shardForNewSchool(jobContext(env))),
    title: `School ${slug}`,
    slug,
    subdomain: slug,
    status: options.status ?? "active",
    planState: options.planState ?? "paid",
    expiresAt: options.expiresAt === undefined ? now + 30 * DAY_MS : options.expiresAt,
    suspendedManually: options.suspendedManually ?? false,
    timezone: options.timezone ?? "Asia/Tashkent",
    createdAt: now,
    updatedAt: now,
  };
  await db().insert(schema.tenants).values(row);
  return row;
}

const hashCache = new Map<string, Promise<string>>();
function cachedHash(password: string) {
  let hash = hashCache.get(password);
  if (!hash) {
    hash = hashPassword(password, env.PASSWORD_PEPPER);
    hashCache.set(password, hash);
  }
  return hash;
}

export interface UserOptions {
  role?: Role;
  password?: string;
  email?: string;
  isActive?: boolean;
  permissions?: Partial<Record<Permission, boolean>>;
  firstName?: string;
}

export async function createUser(tenantId: string | null, options: UserOptions = {}) {
  const now = Date.now();
  const role = options.role ?? (tenantId ? "student" : "superadmin");
  const row = {
    id: uuidv7(),
    tenantId,
    email: options.email ?? `${role}.${unique()}@example.test`,
    passwordHash: await cachedHash(options.password ?? DEFAULT_PASSWORD),
    firstName: options.firstName ?? "Test",
    lastName: "User",
    role,
    isActive: options.isActive ?? true,
    emailVerifiedAt: now,
    createdAt: now,
    updatedAt: now,
  };
  await db().insert(schema.users).values(row);
  if (role === "curator") {
    const p = options.permissions ?? {};
    await db()
      .insert(schema.curatorPermissions)
      .values({
        id: uuidv7(),
        tenantId: tenantId!,
        userId: row.id,
        canManageCourses: p.can_manage_courses ?? false,
        canManageStudents: p.can_manage_students ?? false,
        canManageGroups: p.can_manage_groups ?? false,
        canViewAnalytics: p.can_view_analytics ?? false,
        canManageExams: p.can_manage_exams ?? false,
        canManageNotifications: p.can_manage_notifications ?? false,
        createdAt: now,
        updatedAt: now,
      });
  }
  return { ...row, password: options.password ?? DEFAULT_PASSWORD };
}

export interface LoginOptions {
  subdomain?: string;
  browser?: boolean;
  installationId?: string;
  ip?: string;
}

/** Signs in over HTTP as a native client (refresh token in JSON) unless `browser`. */
export async function login(user: { email: string; password: string }, options: LoginOptions = {}) {
  const headers: Record<string, string> = {};
  if (options.browser) headers.origin = "http://demo.lms.localhost";
  if (options.ip) headers["cf-connecting-ip"] = options.ip;
  const response = await api("/auth/login", {
    body: {
      email: user.email,
      password: user.password,
      subdomain: options.subdomain ?? "",
      ...(options.installationId ? { installation_id: options.installationId } : {}),
      device_platform: "android",
    },
    headers,
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { ...response.body.data, setCookie: response.headers.get("set-cookie") } as {
    token: string;
    refresh_token?: string;
    session_id: string;
    auth_device_id: string;
    access_expires_at: string;
    refresh_expires_at: string;
    setCookie: string | null;
  };
}

/** A school with one member of each role, signed in. */
export async function schoolWithMembers(options: SchoolOptions = {}) {
  const school = await createSchool(options);
  const admin = await createUser(school.id, { role: "admin" });
  const student = await createUser(school.id, { role: "student" });
  const curator = await createUser(school.id, { role: "curator" });
  const [adminSession, studentSession, curatorSession] = await Promise.all(
    [admin, student, curator].map((user) => login(user, { subdomain: school.subdomain })),
  );
  return {
    school,
    admin: { ...admin, token: adminSession!.token },
    student: { ...student, token: studentSession!.token },
    curator: { ...curator, token: curatorSession!.token },
  };
}
