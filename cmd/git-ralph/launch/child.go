package launch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ChildLoop is the command line of a child `git-ralph loop` process: a best-of
// candidate or a workflow stage, started as the user would have started it by hand, so
// that it keeps every guarantee of one loop (its lock, its signals, its state). It is the
// one place that spells it; fleet.RunChild runs it.
type ChildLoop struct {
	Worktree string   // --worktree NAME: the loop's worktree; "" for the work tree it runs in
	Flags    []string // the loop's other flags, each --name=value
	Task     string   // the task, last, after "--" (it may start with a dash)
}

// Args are the child's arguments: loop, --worktree, the flags, the task.
func (c ChildLoop) Args() []string {
	args := []string{"loop"}
	if c.Worktree != "" {
		args = append(args, "--worktree="+c.Worktree)
	}
	args = append(args, c.Flags...)
	if c.Task != "" {
		args = append(args, "--", c.Task)
	}
	return args
}

// Command is the child process: this very program with Args, started in dir.
func (c ChildLoop) Command(dir string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding git-ralph's own program to run a loop: %w", err)
	}
	cmd := exec.Command(exe, c.Args()...)
	cmd.Dir = dir
	return cmd, nil
}

// FlagArgs are the flags a kong command (a struct, or a pointer to one) was given,
// spelled --name=value in the order of its fields, without those skip names and without
// its positional arguments. They are read from the struct's fields, so that a flag added
// to the command reaches its children without a change here. --task-file becomes an
// absolute path: a child runs in the repository root, not where the user is.
func FlagArgs(cmd any, skip map[string]bool) ([]string, error) {
	var args []string
	v := reflect.Indirect(reflect.ValueOf(cmd))
	for i := 0; i < v.NumField(); i++ {
		field := v.Type().Field(i)
		if field.Anonymous && field.Type.Kind() == reflect.Struct { // embedded flags: skip names their own
			more, err := FlagArgs(v.Field(i).Interface(), skip)
			args = append(args, more...)
			if err != nil {
				return nil, err
			}
			continue
		}
		if field.Anonymous || field.Tag.Get("kong") == "-" || !field.IsExported() {
			continue
		}
		name := flagName(field)
		if _, positional := field.Tag.Lookup("arg"); skip[name] || positional {
			continue
		}
		if list, ok := v.Field(i).Interface().([]string); ok { // a repeatable flag: once each
			for _, x := range list {
				args = append(args, "--"+name+"="+x)
			}
			continue
		}
		arg, set, err := flagArg(name, v.Field(i))
		if err != nil {
			return nil, err
		}
		if set {
			args = append(args, arg)
		}
	}
	return absTaskFile(args)
}

// absTaskFile makes --task-file's path absolute.
func absTaskFile(args []string) ([]string, error) {
	for i, a := range args {
		if file, ok := strings.CutPrefix(a, "--task-file="); ok {
			abs, err := filepath.Abs(file)
			if err != nil {
				return nil, fmt.Errorf("finding --task-file %s: %w", file, err)
			}
			args[i] = "--task-file=" + abs
		}
	}
	return args, nil
}

// flagName is the flag of a command's field: its name tag, else its name in kebab case.
func flagName(f reflect.StructField) string {
	if n := f.Tag.Get("name"); n != "" {
		return n
	}
	var b strings.Builder
	for i, r := range f.Name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// flagArg spells one flag's value as --name=value; set is false for a flag not given.
func flagArg(name string, v reflect.Value) (arg string, set bool, err error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false, nil
		}
		v = v.Elem()
	} else if v.IsZero() {
		return "", false, nil
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return "--" + name + "=" + d.String(), true, nil
	}
	switch v.Kind() {
	case reflect.String:
		return "--" + name + "=" + v.String(), true, nil
	case reflect.Bool:
		return "--" + name + "=" + strconv.FormatBool(v.Bool()), true, nil
	case reflect.Int, reflect.Int64:
		return "--" + name + "=" + strconv.FormatInt(v.Int(), 10), true, nil
	}
	return "", false, fmt.Errorf("internal: the loop flag --%s (%s) cannot be passed to a best-of candidate", name, v.Type())
}
