import { integer, text } from "drizzle-orm/sqlite-core";

/** Ids are UUIDv7 strings; timestamps are integer epoch milliseconds (docs/decisions/architecture.md, "Architecture"). */
export const id = () => text("id").primaryKey();
export const tenantRef = () => text("tenant_id").notNull();
export const createdAt = () => integer("created_at").notNull();
export const updatedAt = () => integer("updated_at").notNull();
export const deletedAt = () => integer("deleted_at");
export const flag = (name: string) => integer(name, { mode: "boolean" }).notNull().default(false);
