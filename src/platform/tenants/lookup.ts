import { and, eq, isNull } from "drizzle-orm";
import { tenants } from "../../db/schema";

/** The school with this id, unless soft-deleted. */
export const liveTenant = (id: string) => and(eq(tenants.id, id), isNull(tenants.deletedAt));
