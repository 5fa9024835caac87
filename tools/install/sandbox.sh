# SPDX-License-Identifier: GPL-2.0
# Sourced (bash) by tools/install/check-dkms.sh on the host, inside a
# mount namespace of its own, and by tools/vm/guest-selftests.sh in the
# guest: a real install into the system's own directories, thrown away
# afterwards, that can say what it left behind.
#
# sandbox_begin TMPDIR DIR...
#	mounts a tmpfs on TMPDIR and, over each DIR, an overlay whose
#	upper layer is on that tmpfs: what the install writes lands there
#	and nowhere else.  The view of DIR from before is kept at
#	TMPDIR/lower/N.
# sandbox_leftovers
#	prints one line for each difference between each DIR now and
#	before: a file or directory that was not there (or is not the
#	same), or one that is gone.  Nothing printed: nothing left behind.
#	A rewritten file with its old content (depmod's modules.dep after
#	the modules are gone) is no difference.
# sandbox_upper DIR
#	prints where what was written to DIR is (its upper layer).
# sandbox_end
#	takes the overlays and the tmpfs away.

sandbox_dirs=()
sandbox_root=

sandbox_begin() {
	local d i=0

	sandbox_root=$1
	shift
	mkdir -p "$sandbox_root"
	mount -t tmpfs sl-sandbox "$sandbox_root" || return 1
	for d in "$@"; do
		mkdir -p "$sandbox_root"/{lower,upper,work}/$i
		mount --bind "$d" "$sandbox_root/lower/$i" || return 1
		mount -t overlay -o "lowerdir=$d,upperdir=$sandbox_root/upper/$i,workdir=$sandbox_root/work/$i" \
			sl-sandbox "$d" || return 1
		sandbox_dirs+=("$d")
		i=$((i + 1))
	done
}

sandbox_leftovers() {
	local i d up low rel

	for i in "${!sandbox_dirs[@]}"; do
		d=${sandbox_dirs[$i]}
		up=$sandbox_root/upper/$i
		low=$sandbox_root/lower/$i
		while IFS= read -r -d '' rel; do
			if [ -c "$up/$rel" ] && [ "$(stat -c %t:%T "$up/$rel")" = 0:0 ]; then
				continue	# a whiteout: the directory listing below says it
			elif [ -d "$up/$rel" ] && [ ! -L "$up/$rel" ]; then
				if [ ! -d "$low/$rel" ]; then
					echo "left behind: $d/$rel/"
				else
					# Whiteouts and opaque directories both hide what was there.
					comm -23 <(ls -A "$low/$rel" | sort) <(ls -A "$d/$rel" | sort) |
						sed "s|^|gone: $d/$rel/|"
				fi
			elif [ -L "$up/$rel" ]; then
				[ "$(readlink "$up/$rel")" = "$(readlink "$low/$rel" 2>/dev/null)" ] ||
					echo "left behind: $d/$rel (a link)"
			elif ! cmp -s "$up/$rel" "$low/$rel"; then
				if [ -e "$low/$rel" ]; then
					echo "changed: $d/$rel"
				else
					echo "left behind: $d/$rel"
				fi
			fi
		done < <(cd "$up" && find . -mindepth 1 -print0 | sed -z 's|^\./||')
		# What was at the top of DIR itself.
		comm -23 <(ls -A "$low" | sort) <(ls -A "$d" | sort) | sed "s|^|gone: $d/|"
	done
}

sandbox_upper() {
	local i

	for i in "${!sandbox_dirs[@]}"; do
		[ "${sandbox_dirs[$i]}" != "$1" ] || { echo "$sandbox_root/upper/$i"; return 0; }
	done
	return 1
}

sandbox_end() {
	local i

	# Lazily: the shell running this may have its binary open in one.
	for ((i = ${#sandbox_dirs[@]} - 1; i >= 0; i--)); do
		umount -l "${sandbox_dirs[$i]}" && umount -l "$sandbox_root/lower/$i"
	done
	sandbox_dirs=()
	umount -l "$sandbox_root"
}
