// Package schedule checks cron schedules and adds, lists and removes git-ralph's own lines in the user's crontab.
package schedule
