import { emailField, mediaReference, plainText, searchTerm } from "../../core/http/fields";
import { z } from "@hono/zod-openapi";
import { multiValueQuery, pageQuery, uuidParam } from "../../core/http/pagination";

const SCHOOL_ROLES = ["admin", "curator", "student"] as const;
export type SchoolRole = (typeof SCHOOL_ROLES)[number];

const email = emailField;

const newName = plainText({ min: 1, max: 100 });
/** The spec: first_name and last_name at least 2 characters on update. */
const updatedName = plainText({ min: 2, max: 100 });
const password = z.string().min(8).max(256);

/** An https URL or the id of a media asset of the same school; null removes the avatar. */
const AvatarInput = mediaReference()
  .nullable()
  .openapi({ description: "https URL or media-asset UUID; null removes the avatar", example: "https://cdn.example.com/a.png" });


// ---------------------------------------------------------------------------------------------
// Requests

export const CreateUserBody = z
  .object({
    email,
    password,
    first_name: newName,
    last_name: newName,
    role: z.enum(SCHOOL_ROLES),
  })
  .openapi("CreateUserRequest");

export const ListUsersQuery = z.object({
  ...pageQuery({ maxLimit: 200, defaultLimit: 20 }),
  role: multiValueQuery(SCHOOL_ROLES).optional(),
  status: z.enum(["active", "inactive"]).optional(),
  q: searchTerm(100).openapi({ description: "Search in first name, last name and email; `%` and `_` match themselves" }),
});

export const UpdateUserBody = z
  .object({
    first_name: updatedName.optional(),
    last_name: updatedName.optional(),
    avatar: AvatarInput.optional(),
    is_active: z.boolean().optional(),
  })
  .openapi("UpdateUserRequest");

export const RoleBody = z.object({ role: z.enum(SCHOOL_ROLES) }).openapi("ChangeRoleRequest");

/** The six curator flags (spec, Curator permissions); PUT replaces all of them, so all are required. */
const PermissionFlags = z.object({
  can_manage_courses: z.boolean(),
  can_manage_students: z.boolean(),
  can_manage_groups: z.boolean(),
  can_view_analytics: z.boolean(),
  can_manage_exams: z.boolean(),
  can_manage_notifications: z.boolean(),
});

export const PermissionsBody = PermissionFlags.openapi("CuratorPermissionsRequest");

export const CuratorBody = z
  .object({
    curator_id: uuidParam.nullable().openapi({ description: "A curator of the school; null clears the individual assignment" }),
  })
  .openapi("AssignCuratorRequest");

export const BulkBody = z.object({ ids: z.array(uuidParam).min(1).max(100) }).openapi("BulkUsersRequest");

export const ProfilePatchBody = z
  .object({
    first_name: updatedName.optional(),
    last_name: updatedName.optional(),
    avatar: AvatarInput.optional(),
  })
  .openapi("ProfileUpdateRequest");

export const PasswordChangeBody = z
  .object({
    current_password: z.string().min(1).max(256),
    new_password: password,
  })
  .openapi("PasswordChangeRequest");

// ---------------------------------------------------------------------------------------------
// Responses

export const UserObject = z
  .object({
    id: z.string(),
    tenant_id: z.string().nullable(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    avatar: z.string().nullable().openapi({ description: "URL, or a signed download link when stored as a media asset" }),
    role: z.enum(["superadmin", ...SCHOOL_ROLES]),
    is_active: z.boolean(),
    last_active_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("User");

const UserGroup = z.object({ group_id: z.string(), name: z.string(), logo: z.string().nullable() });

export const UserDetail = UserObject.extend({
  group_count: z.number().int(),
  groups: z.array(UserGroup).openapi({ description: "Ordered by join date" }),
  individual_curator_id: z.string().nullable(),
  individual_curator_first_name: z.string().nullable(),
  individual_curator_last_name: z.string().nullable(),
  individual_curator_email: z.string().nullable(),
}).openapi("UserDetail");

export const UserList = z.object({
  users: z.array(UserDetail),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

export const PermissionsObject = z
  .object({ id: z.string(), user_id: z.string(), ...PermissionFlags.shape, created_at: z.string(), updated_at: z.string() })
  .openapi("CuratorPermissions");

export const UserWithPermissions = UserObject.extend({
  permissions: PermissionsObject.nullable().openapi({ description: "The curator's permission set; null for other roles" }),
}).openapi("UserWithPermissions");

export const BulkResult = z.object({
  affected: z.number().int(),
  skipped: z.number().int(),
  skipped_details: z.array(
    z.object({ id: z.string(), reason: z.enum(["not_found", "not_in_scope"]) }).openapi({
      description: "`not_found`: no live user of this school; `not_in_scope`: a user the caller may not manage",
    }),
  ),
});

export const DeletedResult = z.object({ deleted: z.literal(true) });
export const PermanentlyDeletedResult = z.object({ deleted: z.literal(true), permanent: z.literal(true) });

export const Profile = UserObject.extend({
  tenant: z.object({
    id: z.string(),
    subdomain: z.string(),
    title: z.string(),
    plan_state: z.string(),
    expires_at: z.string().nullable(),
    days_remaining: z.number().int(),
  }),
}).openapi("Profile");

export const PasswordChangeResult = z.object({
  password_changed: z.literal(true),
  other_sessions_revoked: z.number().int().openapi({ description: "Sessions ended by the school's revoke_on_password_change policy" }),
});
