/** Password length rules, apart from the hashing so the browser can import them. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;
