import { and, eq, isNull } from "drizzle-orm";
import { tenants } from "../../db/schema";
import { ApiError } from "../../core/http/errors";

/** A school addressed by id (superadmin endpoints, billing) that is missing or soft-deleted. */
export const tenantNotFound = () => new ApiError(404, "tenant not found", "No such school.");

/** The school with this id, unless soft-deleted. */
export const liveTenant = (id: string) => and(eq(tenants.id, id), isNull(tenants.deletedAt));
