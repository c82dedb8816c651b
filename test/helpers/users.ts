import { and, eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import type { Permission, Role } from "../../src/core/http/context";
import { uuidv7 } from "../../src/core/lib/ids";
import { createSchool, createUser, db, login, type UserOptions } from "./factories";
import { api, type ApiCall } from "./http";
import { rebuildCuratorStudentsOf, tenantOfUser } from "./curator-students";

export interface Member {
  id: string;
  email: string;
  password: string;
  role: Role;
  token: string;
  sessionId: string;
  subdomain: string;
  tenantId: string;
}

/** A user of the school, signed in. */
export async function signedIn(school: { id: string; subdomain: string }, options: UserOptions = {}): Promise<Member> {
  const user = await createUser(school.id, options);
  const session = await login(user, { subdomain: school.subdomain });
  return {
    id: user.id,
    email: user.email,
    password: user.password,
    role: user.role,
    token: session.token,
    sessionId: session.session_id,
    subdomain: school.subdomain,
    tenantId: school.id,
  };
}

/** A school and its signed-in admin. */
export async function schoolWithAdmin() {
  const school = await createSchool();
  const admin = await signedIn(school, { role: "admin" });
  return { school, admin };
}

export function curatorWith(permissions: Partial<Record<Permission, boolean>>): UserOptions {
  return { role: "curator", permissions };
}

/** Calls a /t/* endpoint as the member (token and school header). */
export function as(member: Member, path: string, call: Omit<ApiCall, "token" | "tenant"> = {}) {
  return api(path, { ...call, token: member.token, tenant: member.subdomain });
}

export async function createGroup(tenantId: string, options: { name?: string; logo?: string | null; deleted?: boolean } = {}) {
  const now = Date.now();
  const row = {
    id: uuidv7(),
    tenantId,
    name: options.name ?? `Group ${Math.random().toString(36).slice(2, 8)}`,
    logo: options.logo ?? null,
    createdAt: now,
    updatedAt: now,
    deletedAt: options.deleted ? now : null,
  };
  await db().insert(schema.groups).values(row);
  return row;
}

export async function addMember(group: { id: string; tenantId: string }, userId: string, joinedAt = Date.now()) {
  await db().insert(schema.groupMembers).values({ tenantId: group.tenantId, groupId: group.id, userId, joinedAt });
  await rebuildCuratorStudentsOf(group.tenantId, [userId]);
}

export async function addGroupCurator(group: { id: string; tenantId: string }, curatorId: string) {
  await db().insert(schema.groupCurators).values({ tenantId: group.tenantId, groupId: group.id, curatorId, createdAt: Date.now() });
  await rebuildCuratorStudentsOf(group.tenantId, [curatorId]);
}

export async function assignIndividualCurator(studentId: string, curatorId: string | null) {
  await db().update(schema.users).set({ individualCuratorId: curatorId }).where(eq(schema.users.id, studentId));
  await rebuildCuratorStudentsOf(await tenantOfUser(studentId), [studentId]);
}

export async function userRow(id: string) {
  const [row] = await db().select().from(schema.users).where(eq(schema.users.id, id));
  return row;
}

export async function sessionRow(id: string) {
  const [row] = await db().select().from(schema.sessions).where(eq(schema.sessions.id, id));
  return row;
}

export async function permissionsRow(userId: string) {
  const [row] = await db().select().from(schema.curatorPermissions).where(eq(schema.curatorPermissions.userId, userId));
  return row;
}

export async function outboxFor(tenantId: string, email: string) {
  return db()
    .select()
    .from(schema.emailOutbox)
    .where(and(eq(schema.emailOutbox.tenantId, tenantId), eq(schema.emailOutbox.toEmail, email)));
}

/** A uuid no row has. */
export const unknownId = () => uuidv7();

/** Every row of the user from the API, by id. */
export async function listIds(member: Member, query = "") {
  const res = await as(member, `/t/users?limit=200${query}`);
  if (res.status !== 200) throw new Error(`list failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.data.users as { id: string }[]).map((user) => user.id);
}
