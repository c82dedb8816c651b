import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, id, tenantRef, updatedAt } from "../columns";

export const groups = sqliteTable(
  "groups",
  {
    id: id(),
    tenantId: tenantRef(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** A media-asset id of the school (an image) or an image URL, as sent; null without a logo. */
    logo: text("logo"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("groups_tenant").on(t.tenantId)],
);

export const groupMembers = sqliteTable(
  "group_members",
  {
    tenantId: tenantRef(),
    groupId: text("group_id").notNull(),
    userId: text("user_id").notNull(),
    joinedAt: integer("joined_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.userId] }),
    index("group_members_user").on(t.userId),
    index("group_members_tenant_group").on(t.tenantId, t.groupId),
  ],
);

/** Curators assigned to a group see its members as their own students. */
export const groupCurators = sqliteTable(
  "group_curators",
  {
    tenantId: tenantRef(),
    groupId: text("group_id").notNull(),
    curatorId: text("curator_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.curatorId] }),
    index("group_curators_curator").on(t.curatorId),
    index("group_curators_tenant_curator").on(t.tenantId, t.curatorId),
  ],
);
