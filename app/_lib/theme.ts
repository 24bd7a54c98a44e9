import { cookies } from 'next/headers.js';
import type { Theme } from '../_ui/theme-toggle.tsx';

export async function themeOf(): Promise<Theme> {
  const value = (await cookies()).get('theme')?.value;
  return value === 'light' || value === 'dark' ? value : 'system';
}
