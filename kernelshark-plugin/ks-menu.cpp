// SPDX-License-Identifier: LGPL-2.1
/*
 * The menu interface: KernelShark calls kshark_plugin_menu_initializer()
 * with its main window (a QMainWindow) when it registers the plugin. The
 * plugin adds Tools > "User stacks of a task" with the shortcut
 * Ctrl+Shift+U, which opens its dialog (ks-dialog.cpp). Menus are found by
 * their text, "Tools" (KernelShark 2.2.1 gives them no mnemonics); without
 * one, the action goes into a "User stacks" menu of its own.
 */
#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>

#include "ks-gui.hpp"

QMainWindow *ksu_main_window;

static QMenu *ksu_tools_menu(QMainWindow *w)
{
	for (QAction *a : w->menuBar()->actions()) {
		if (a->menu() && a->text().remove('&') == "Tools")
			return a->menu();
	}
	return w->menuBar()->addMenu("User stacks");
}

/**
 * kshark_plugin_menu_initializer - add the plugin's menu entry
 * @gui_ptr: KernelShark's main window
 *
 * Return: NULL (the dialog is made when asked for, and deletes itself).
 */
extern "C" KSU_EXPORT void *kshark_plugin_menu_initializer(void *gui_ptr)
{
	QMainWindow *w = qobject_cast<QMainWindow *>(static_cast<QObject *>(gui_ptr));
	QAction *act;

	if (!w)
		return nullptr;
	ksu_main_window = w;
	act = new QAction("User stacks of a task", w);
	act->setObjectName("ksu_stacks_action");
	act->setShortcut(QKeySequence("Ctrl+Shift+U"));
	act->setShortcutContext(Qt::ApplicationShortcut);
	QObject::connect(act, &QAction::triggered, [w]() { ksu_dialog_open(w); });
	ksu_tools_menu(w)->addAction(act);
	/* the shortcut works without the menu open */
	w->addAction(act);
	ksu_log("menu: Tools/User stacks of a task (Ctrl+Shift+U)");
	return nullptr;
}
