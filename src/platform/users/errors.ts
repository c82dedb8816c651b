import { errorCatalogue } from "../../core/http/errors";

/**
 * Failures of the school's user management and of the member's own profile. The contract spells
 * the not-found identifier per endpoint (`user not found`, `user_not_found`, and 400 on permanent
 * delete), so each spelling is its own entry; docs/decisions/http.md, "Error catalogues per area"
 * lists which endpoint answers which.
 */
export const usersErrors = errorCatalogue({
  /** PUT /t/users/:id, DELETE /t/users/:id, role and permissions: no live user of this school. */
  USER_NOT_FOUND: [404, "user not found", "User not found."],
  /** GET /t/users/:id: unknown, another school's, deleted, or outside a restricted curator's scope. */
  USER_NOT_VISIBLE: [404, "user_not_found", "User not found."],
  /** PUT /t/users/:id/curator targets live students of the school only. */
  STUDENT_NOT_FOUND: [404, "user_not_found", "Student not found."],
  /** DELETE /t/users/:id/permanent: no user of this school (a soft-deleted one can still be purged). */
  PURGE_TARGET_NOT_FOUND: [400, "user not found", "User not found."],
  CANNOT_DELETE_SELF: [400, "cannot delete yourself", "You cannot delete your own account."],
  CANNOT_MODIFY_SELF: [400, "cannot_modify_self", "You cannot change your own role or deactivate yourself."],
  CURATOR_NOT_ELIGIBLE: [400, "curator_not_eligible", "The curator must be a curator of this school that is not deleted."],
  EMAIL_TAKEN: [400, "email already taken", "A user with this email already exists in the school."],
  /** A curator passes the create gate through can_manage_students, which covers students only. */
  CURATORS_CREATE_STUDENTS_ONLY: [403, "forbidden", "Curators can create students only."],
  NOT_A_CURATOR: [400, "user is not a curator", "The user is not a curator."],
  PERMISSIONS_NOT_FOUND: [400, "permissions not found", "This curator has no permission set."],
  INVALID_CURRENT_PASSWORD: [400, "invalid current password", "The current password is wrong."],
  /** POST /t/me/password: answered only after the current password checked out, so it reveals nothing new. */
  SAME_PASSWORD: [400, "same_password", "The new password must differ from the current one."],

  /** Path-id validation of the admin-only user endpoints and GET /t/users/:id. */
  INVALID_ID_FORMAT: [400, "invalid id format", "The id in the path is not a valid UUID."],
  /** Body validation of PUT /t/users/:id/role. */
  VALIDATION_ERROR: [400, "validation error", "The request is invalid."],
});
