/* tui.h - the interactive stepper. */
#ifndef ATTNSCOPE_TUI_H
#define ATTNSCOPE_TUI_H

struct cli;

/* Runs the stepper until q; returns the exit status. */
int tui_run(struct cli *c);

#endif
