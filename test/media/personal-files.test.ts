import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { runCron } from "../helpers/billing";
import { createUser, db, login } from "../helpers/factories";
import { api } from "../helpers/http";
import { as } from "../helpers/users";
import { assetRow, confirmedAsset, download, FIXTURES, getAsset, mediaSchool, objectOf } from "./helpers";

async function setAvatar(userId: string, assetId: string) {
  await db().update(schema.users).set({ avatar: assetId }).where(eq(schema.users.id, userId));
}

describe("personal files leave no orphan objects", () => {
  it("a permanent user deletion removes the user's avatar (asset and object); files they uploaded for the school stay", async () => {
    const { admin, student } = await mediaSchool();
    const avatar = await confirmedAsset(student, "image", FIXTURES.png);
    const shared = await confirmedAsset(student, "pdf", FIXTURES.pdf);
    await setAvatar(student.id, avatar.id);
    const avatarKey = (await assetRow(avatar.id))!.objectKey;
    const sharedKey = (await assetRow(shared.id))!.objectKey;

    const res = await as(admin, `/t/users/${student.id}/permanent`, { method: "DELETE" });
    expect(res.status).toBe(200);
    // Unreachable at once: neither readable nor downloadable.
    expect((await getAsset(admin, avatar.id)).status).toBe(404);
    expect((await download(avatar.presigned_url)).response.status).toBe(404);
    // The shared file stays, without its uploader.
    expect(await assetRow(shared.id)).toMatchObject({ deletedAt: null, uploadedByUserId: null });

    await runCron();
    expect(await objectOf(avatarKey)).toBeNull();
    expect(await assetRow(avatar.id)).toBeUndefined();
    expect(await objectOf(sharedKey)).not.toBeNull();
    expect((await getAsset(admin, shared.id)).status).toBe(200);
  });

  it("deleting a school removes its members' avatars; its logo and shared files stay", async () => {
    const { school, admin, student } = await mediaSchool();
    const adminAvatar = await confirmedAsset(admin, "image", FIXTURES.png);
    const studentAvatar = await confirmedAsset(student, "image", FIXTURES.png);
    const logo = await confirmedAsset(admin, "image", FIXTURES.png);
    const handout = await confirmedAsset(admin, "pdf", FIXTURES.pdf);
    await setAvatar(admin.id, adminAvatar.id);
    await setAvatar(student.id, studentAvatar.id);
    await db().update(schema.tenants).set({ logo: logo.id }).where(eq(schema.tenants.id, school.id));
    // Another school's identical setup is untouched.
    const other = await mediaSchool();
    const otherAvatar = await confirmedAsset(other.student, "image", FIXTURES.png);
    await setAvatar(other.student.id, otherAvatar.id);

    const superadmin = await createUser(null, { role: "superadmin" });
    const { token } = await login(superadmin, { subdomain: "" });
    expect((await api(`/admin/tenants/${school.id}`, { method: "DELETE", token })).status).toBe(200);
    const keys = await Promise.all([adminAvatar, studentAvatar, logo, handout].map(async (asset) => (await assetRow(asset.id))!.objectKey));
    await runCron();

    expect(await objectOf(keys[0]!)).toBeNull();
    expect(await objectOf(keys[1]!)).toBeNull();
    expect(await assetRow(adminAvatar.id)).toBeUndefined();
    expect(await assetRow(studentAvatar.id)).toBeUndefined();
    expect(await objectOf(keys[2]!)).not.toBeNull();
    expect(await objectOf(keys[3]!)).not.toBeNull();
    expect(await assetRow(logo.id)).toMatchObject({ deletedAt: null, status: "confirmed" });
    expect((await getAsset(other.student, otherAvatar.id)).status).toBe(200);
  });
});
