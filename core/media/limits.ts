/** Upload limits besides the settings (UPLOAD_MAX_BYTES, UPLOAD_MAX_FILES, UPLOAD_PART_HEADER_MAX_BYTES), named and documented (README: Media). */

/** Files a multiple media field may hold in all; more → 422. */
export const MAX_FILES_PER_FIELD = 100;
