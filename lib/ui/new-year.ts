// When the top bar shows its New Year ornament: around the solar New Year (31 Dec – 3 Jan) and
// in the Spring Festival window of 9–24 February. Local calendar date, no time-zone games.

export function isNewYearPeriod(date: Date): boolean {
  const month = date.getMonth() + 1;
  const day = date.getDate();
  if (month === 12 && day === 31) return true;
  if (month === 1 && day <= 3) return true;
  return month === 2 && day >= 9 && day <= 24;
}
